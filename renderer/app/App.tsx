// The window: title bar, sidebar (open, recent, samples), main panel; the whole window takes
// folder drops.
import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent, type ReactNode } from 'react';
import type { TransportMode } from '../../shared/api';
import { BisectView } from '../bisect/BisectView';
import { CompareView } from '../compare/CompareView';
import { DataView } from '../data/DataView';
import { PartitionsView } from '../partitions/PartitionsView';
import { SchemaView } from '../schema/SchemaView';
import { HistoryView } from '../history/HistoryView';
import { TimelineView } from '../timeline/TimelineView';
import { pathFromDrop } from '../ui/drop';
import { OpenPanel, RecentList, SampleList } from '../open/OpenPanel';
import { ProofView } from '../proof/ProofView';
import { ReconcileView } from '../reconcile/ReconcileView';
import { routeSourceDrop } from '../reconcile/route-drop';
import { RunsView } from '../runs/RunsView';
import { TrustView } from '../trust/TrustView';
import { LineageView } from '../lineage/LineageView';
import { NO_SAMPLES, useClient, useWorkbench } from '../state/context';
import { ErrorPanel } from '../ui/ErrorPanel';
import { useNav, type ScreenId } from './nav';

function EmptyState() {
  const samples = useWorkbench((s) => s.info?.sampleTables ?? NO_SAMPLES);
  const openTable = useWorkbench((s) => s.openTable);
  // A browser never says where a dropped folder is (Electron does, through webUtils).
  const dropGivesPath = useWorkbench((s) => s.info?.canResolveDroppedFiles ?? false);
  return (
    <div className="empty" data-testid="empty-state">
      <div className="drop-target">
        <div className="drop-glyph" aria-hidden="true">⇩</div>
        <h1>Open a Delta table</h1>
        {dropGivesPath
          ? <p>Drop a table folder here, type its path on the left, or pick a recent table.</p>
          : (
            <p data-testid="drop-needs-path">
              In a browser, a dropped folder does not tell its path: drag it from a file manager that shares paths, or{' '}
              <button type="button" className="btn btn-small" data-testid="focus-path" onClick={() => document.querySelector<HTMLInputElement>('[data-testid=path-input]')?.focus()}>type or paste its path</button>
              {' '}on the left, or pick a recent table.
            </p>
          )}
        <p className="muted">lakerec reads the table&apos;s <code>_delta_log</code> and never writes into it.</p>
        {samples.length > 0 && (
          <button type="button" className="btn btn-primary" onClick={() => void openTable(samples[0].path)}>
            Open the sample lake “{samples[0].name}”
          </button>
        )}
      </div>
    </div>
  );
}

interface Screen {
  id: ScreenId;
  label: string;
  /** Shows the "open a table" state while no table is open. */
  needsTable: boolean;
  render: () => ReactNode;
}

/** The tabs of the main panel, in order. A screen is one entry here and a folder of its own. */
const SCREENS: Screen[] = [
  { id: 'timeline', label: 'Timeline', needsTable: true, render: () => <TimelineView /> },
  { id: 'data', label: 'Data', needsTable: true, render: () => <DataView /> },
  { id: 'schema', label: 'Schema', needsTable: true, render: () => <SchemaView /> },
  { id: 'compare', label: 'Compare', needsTable: true, render: () => <CompareView /> },
  { id: 'partitions', label: 'Partitions', needsTable: true, render: () => <PartitionsView /> },
  { id: 'history', label: 'History', needsTable: true, render: () => <HistoryView /> },
  { id: 'bisect', label: 'Bisect', needsTable: true, render: () => <BisectView /> },
  { id: 'reconcile', label: 'Reconcile', needsTable: true, render: () => <ReconcileView /> },
  { id: 'trust', label: 'Trust', needsTable: true, render: () => <TrustView /> },
  { id: 'lineage', label: 'Lineage', needsTable: true, render: () => <LineageView /> },
  { id: 'proof', label: 'Proof', needsTable: false, render: () => <ProofView /> },
  { id: 'runs', label: 'Runs', needsTable: false, render: () => <RunsView /> },
];

function Workspace() {
  const screen = useNav((s) => s.screen);
  const setScreen = useNav((s) => s.setScreen);
  const table = useWorkbench((s) => s.table);
  const active = SCREENS.find((s) => s.id === screen) ?? SCREENS[0];
  const tabs = useRef<HTMLDivElement>(null);
  // WAI-ARIA tabs: one tab stop; arrow keys, Home and End move between tabs and show them.
  const onKey = (e: KeyboardEvent) => {
    const i = SCREENS.findIndex((s) => s.id === active.id);
    const to = e.key === 'ArrowRight' ? (i + 1) % SCREENS.length : e.key === 'ArrowLeft' ? (i - 1 + SCREENS.length) % SCREENS.length
      : e.key === 'Home' ? 0 : e.key === 'End' ? SCREENS.length - 1 : -1;
    if (to < 0) return;
    e.preventDefault();
    setScreen(SCREENS[to].id);
    tabs.current?.querySelector<HTMLButtonElement>(`#tab-${SCREENS[to].id}`)?.focus();
  };
  return (
    <>
      <div className="tabs" role="tablist" aria-label="Screens" ref={tabs} onKeyDown={onKey}>
        {SCREENS.map((s) => (
          <button
            key={s.id}
            type="button"
            role="tab"
            id={`tab-${s.id}`}
            aria-selected={s.id === active.id}
            aria-controls="screen-panel"
            tabIndex={s.id === active.id ? 0 : -1}
            className={`tab${s.id === active.id ? ' active' : ''}`}
            data-testid={`tab-${s.id}`}
            onClick={() => setScreen(s.id)}
          >
            {s.label}
          </button>
        ))}
      </div>
      <div className="screen" role="tabpanel" id="screen-panel" aria-labelledby={`tab-${active.id}`} data-testid={`screen-${active.id}`}>
        {active.needsTable && !table ? <EmptyState /> : active.render()}
      </div>
    </>
  );
}

/** How the title bar names the transport: a label to show, never a capability (ADR 0006). */
const MODE_BADGE: Record<TransportMode, { label: string; title: string }> = {
  web: { label: 'web mode · 127.0.0.1', title: 'Served on 127.0.0.1 to this browser only' },
  electron: { label: 'desktop', title: 'Desktop app' },
};

function TitleBar() {
  const info = useWorkbench((s) => s.info);
  const badge = info ? MODE_BADGE[info.mode] : null;
  return (
    <header className="titlebar">
      <span className="brand"><span className="brand-mark" aria-hidden="true">◈</span>lakerec</span>
      <span className="brand-sub">Delta table forensics</span>
      <span className="spacer" />
      {info && badge && (
        <span className="mode" data-testid="mode-badge" title={badge.title}>
          {badge.label} · v{info.version}
        </span>
      )}
    </header>
  );
}

export function App() {
  const client = useClient();
  const boot = useWorkbench((s) => s.boot);
  const bootError = useWorkbench((s) => s.bootError);
  const notice = useWorkbench((s) => s.notice);
  const setNotice = useWorkbench((s) => s.setNotice);
  const openTable = useWorkbench((s) => s.openTable);
  const hasTable = useWorkbench((s) => s.table !== null);
  const [dragging, setDragging] = useState(false);
  const depth = useRef(0);

  useEffect(() => {
    void boot();
  }, [boot]);

  const onDragEnter = (e: DragEvent) => {
    e.preventDefault();
    depth.current++;
    setDragging(true);
  };
  const onDragLeave = (e: DragEvent) => {
    e.preventDefault();
    depth.current = Math.max(0, depth.current - 1);
    if (depth.current === 0) setDragging(false);
  };
  const onDragOver = (e: DragEvent) => {
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    depth.current = 0;
    setDragging(false);
    // A source file dropped while a table is open goes to Reconcile as the source of truth.
    if (hasTable && routeSourceDrop(e.dataTransfer, client, () => useNav.getState().setScreen('reconcile'))) return;
    const r = pathFromDrop(e.dataTransfer, client);
    if (!r) setNotice({ code: 'usage', message: 'That drop did not name a folder. Drop a Delta table folder.' });
    else if ('path' in r) void openTable(r.path);
    else setNotice(r.error);
  };

  return (
    <div className="app" data-testid="app" onDragEnter={onDragEnter} onDragLeave={onDragLeave} onDragOver={onDragOver} onDrop={onDrop}>
      <a className="skip-link" href="#main-panel" onClick={(e) => { e.preventDefault(); document.getElementById('main-panel')?.focus(); }}>Skip to the main panel</a>
      <TitleBar />
      <div className="body">
        <aside className="sidebar">
          <OpenPanel />
          {notice && (
            <div className="notice" role="status" data-testid="notice">
              <span>{notice.message}</span>
              <button type="button" className="item-remove" aria-label="Dismiss" onClick={() => setNotice(null)}>×</button>
            </div>
          )}
          <RecentList />
          <SampleList />
        </aside>
        <main className="main" id="main-panel" tabIndex={-1} aria-label="Main panel">
          {bootError ? (
            <div className="pad"><ErrorPanel error={bootError} onRetry={() => void boot()} /></div>
          ) : (
            <Workspace />
          )}
        </main>
      </div>
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <div className="drop-overlay-box">Drop the table folder to open it</div>
        </div>
      )}
    </div>
  );
}
