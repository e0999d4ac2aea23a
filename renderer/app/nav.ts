// Which screen the main panel shows, and cross-screen requests (bisect's culprit opened in the
// timeline, a commit's added rows in the Data tab, two versions in Compare). A small store of its
// own so each screen's state stays in its folder. Each request carries `seq` so a repeat is new.
import { create } from 'zustand';

/** Every screen of the workbench; App.tsx lists the ones that exist as tabs. */
export type ScreenId = 'timeline' | 'data' | 'schema' | 'compare' | 'partitions' | 'history' | 'reconcile' | 'trust' | 'bisect' | 'proof' | 'runs' | 'lineage';

export interface NavState {
  screen: ScreenId;
  /** A version another screen asked the timeline to open; `seq` makes a repeat request new. */
  focus: { version: number; seq: number } | null;
  /** The Data tab at a version (null: latest), optionally only the rows a commit added. */
  rowsRequest: { version: number | null; addedIn: number | null; seq: number } | null;
  /** Compare two versions. */
  compareRequest: { from: number; to: number; seq: number } | null;
  /** Reconcile a source against the table at this version. */
  reconcileRequest: { version: number; seq: number } | null;
  /** A version marked in the timeline as one side of a comparison (the next version picked is the other). */
  compareMark: number | null;
  markCompare(version: number | null): void;
  setScreen(screen: ScreenId): void;
  /** Switch to the timeline with `version` selected. */
  openVersion(version: number): void;
  openRows(version: number | null, addedIn?: number | null): void;
  openCompare(from: number, to: number): void;
  reconcileAgainst(version: number): void;
}

let seq = 0;

export const useNav = create<NavState>()((set) => ({
  screen: 'timeline',
  focus: null,
  rowsRequest: null,
  compareRequest: null,
  reconcileRequest: null,
  compareMark: null,
  markCompare: (compareMark) => set({ compareMark }),
  setScreen: (screen) => set({ screen }),
  openVersion: (version) => set({ screen: 'timeline', focus: { version, seq: ++seq } }),
  openRows: (version, addedIn = null) => set({ screen: 'data', rowsRequest: { version, addedIn, seq: ++seq } }),
  openCompare: (from, to) => set({ screen: 'compare', compareRequest: { from, to, seq: ++seq }, compareMark: null }),
  reconcileAgainst: (version) => set({ screen: 'reconcile', reconcileRequest: { version, seq: ++seq } }),
}));
