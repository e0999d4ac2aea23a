// Which screen the main panel shows, and cross-screen requests (bisect's culprit opened in the
// timeline). A small store of its own so each screen's state stays in its folder.
import { create } from 'zustand';

/** Every screen of the workbench; App.tsx lists the ones that exist as tabs. */
export type ScreenId = 'timeline' | 'history' | 'reconcile' | 'trust' | 'bisect' | 'proof' | 'runs';

export interface NavState {
  screen: ScreenId;
  /** A version another screen asked the timeline to open; `seq` makes a repeat request new. */
  focus: { version: number; seq: number } | null;
  setScreen(screen: ScreenId): void;
  /** Switch to the timeline with `version` selected. */
  openVersion(version: number): void;
}

export const useNav = create<NavState>()((set) => ({
  screen: 'timeline',
  focus: null,
  setScreen: (screen) => set({ screen }),
  openVersion: (version) => set((s) => ({ screen: 'timeline', focus: { version, seq: (s.focus?.seq ?? 0) + 1 } })),
}));
