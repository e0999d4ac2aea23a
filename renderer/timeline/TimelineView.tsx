// The investigation (timeline forensics) screen: the table's header, the timeline of every
// version with the findings marked, the findings and versions lists, and the selected commit.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { HEURISTIC_LABELS, matchesFilter, type VersionFilter, type VersionSummary } from '../../shared/forensics';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { CopyButton } from '../ui/CopyButton';
import { useNav } from '../app/nav';
import { formatUtc, operationKind } from '../ui/format';
import { FirstPage, TableGate } from '../app/TableGate';
import { useClient, useWorkbench } from '../state/context';
import { CommitPanel } from './CommitPanel';
import './timeline.css';
import { timelineStoreFor, useTimeline } from '../state/timeline';
import { formatBytes, formatInt } from '../ui/format';
import { TimelineChart } from './TimelineChart';
import { WindowedList } from '../ui/WindowedList';
import { whoLine } from '../ui/who';

const ROW = 26;
/** The last cross-screen focus request handled (so coming back to the tab does not re-apply it). */
let handledFocus = 0;

function Header() {
  const o = useTimeline((s) => s.overview);
  const f = useTimeline((s) => s.forensics);
  const path = useTimeline((s) => s.path);
  // While the timeline loads, the name the open table already has.
  const opened = useWorkbench((s) => s.table?.summary ?? null);
  const warn = f ? f.heuristics.filter((h) => h.severity === 'warn').length : 0;
  const feats = o ? [...new Set([...o.readerFeatures, ...o.writerFeatures])] : [];
  // Figures of a version that cannot be read come from its log alone: each says so.
  const logOnly = o && !o.latestReadable ? <span className="muted" data-testid="fact-log-only"> (log of v{o.latestVersion})</span> : null;
  return (
    <header className="table-header" data-testid="investigate-header">
      <div className="table-title">
        <span className="table-icon" aria-hidden="true">▦</span>
        <div>
          <h1 data-testid="table-name">{o?.name ?? opened?.name ?? ''}</h1>
          <div className="table-path mono" title={o?.path ?? opened?.path ?? path ?? ''}>{o?.path ?? opened?.path ?? path}<CopyButton text={o?.path ?? opened?.path ?? path ?? ''} label="Copy the table path" /></div>
        </div>
      </div>
      {o?.logChanged && <div className="banner info" data-testid="log-changed">New commits arrived since this table was last shown: the log was re-read for them.</div>}
      {o && !o.latestReadable && (
        <div className="banner warn" data-testid="latest-unreadable">
          Version {o.latestVersion} cannot be read by lakerec ({o.latestUnreadableReason}): its files, rows and size below are what its log records, not a read of the table.
        </div>
      )}
      {o && (
        <dl className="facts" data-testid="investigate-facts">
          <div><dt>Version</dt><dd className="mono" data-testid="fact-version">{o.latestVersion}</dd></div>
          <div title={feats.length ? `features: ${feats.join(', ')}` : 'no table features'}>
            <dt>Protocol</dt><dd className="mono">{o.minReaderVersion ?? '?'} / {o.minWriterVersion ?? '?'}{feats.length ? ` +${feats.length}` : ''}</dd>
          </div>
          <div><dt>Partitions</dt><dd className="mono">{o.partitionColumns.length ? o.partitionColumns.join(', ') : 'none'}</dd></div>
          <div><dt>Files{logOnly}</dt><dd className="mono" data-testid="fact-files">{formatInt(o.files)}</dd></div>
          <div><dt>Rows{logOnly}</dt><dd className="mono" data-testid="fact-rows">{formatInt(o.rows)}</dd></div>
          <div><dt>Size{logOnly}</dt><dd className="mono">{formatBytes(o.bytes)}</dd></div>
          <div><dt>Findings</dt><dd className={`mono ${warn ? 'remove' : ''}`} data-testid="fact-findings">{f ? `${warn} warn · ${f.heuristics.length - warn} info` : '—'}</dd></div>
        </dl>
      )}
    </header>
  );
}

function flagsOf(v: VersionSummary, warn: Set<number>, info: Set<number>) {
  return (
    <span className="vflags">
      {warn.has(v.version) && <span className="flag warn" title="a finding (warn) fired here">⚑</span>}
      {!warn.has(v.version) && info.has(v.version) && <span className="flag info" title="a finding (info) fired here">⚑</span>}
      {v.hasCheckpoint && <span className="flag cp" title="checkpoint">◆</span>}
      {!v.readable && <span className="flag gone" title={v.unreadableReason ?? 'unreadable'}>⊘</span>}
    </span>
  );
}

function Findings({ onPick }: { onPick(v: number): void }) {
  const f = useTimeline((s) => s.forensics);
  const selected = useTimeline((s) => s.selected);
  if (!f) return null;
  const hits = [...f.heuristics].sort((a, b) => (a.severity === b.severity ? b.version - a.version : a.severity === 'warn' ? -1 : 1));
  return (
    <section className="side-block findings-list" data-testid="findings">
      <div className="block-title">Findings <span className="count">{hits.length}</span></div>
      {hits.length === 0 ? (
        <p className="muted small" data-testid="findings-empty">No heuristic fired: nothing in this log looks like an incident.</p>
      ) : (
        <ul>
          {hits.map((h, i) => (
            <li key={i}>
              <button type="button" className={`finding-item ${h.severity}${selected === h.version ? ' active' : ''}`} data-testid="finding-item"
                data-name={h.name} data-version={h.version} onClick={() => onPick(h.version)} title={`${h.name}: ${h.message}`}>
                <span className="mono strong">v{h.version}</span>
                <span className={`sev sev-${h.severity}`}>{h.severity}</span>
                <span className="ellipsis" data-testid="finding-label">{HEURISTIC_LABELS[h.name]}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const FILTER_FIELDS: { key: keyof VersionFilter; label: string; placeholder: string }[] = [
  { key: 'operation', label: 'Operation', placeholder: 'DELETE' },
  { key: 'user', label: 'User', placeholder: 'alice' },
  { key: 'writer', label: 'Writer', placeholder: 'Spark' },
  { key: 'partition', label: 'Partition', placeholder: 'dt=2026-08-10' },
  { key: 'text', label: 'Text', placeholder: 'in userMetadata, parameters, job' },
  { key: 'since', label: 'Since', placeholder: '2026-08-10T00:00Z' },
  { key: 'until', label: 'Until', placeholder: '2026-08-11T00:00Z' },
];

/** The timeline's filters: the same predicate as `lakerec forensics --operation … --since …` (each box: part of the field, any case). */
function FilterBar({ filter, onChange }: { filter: VersionFilter; onChange(f: VersionFilter): void }) {
  return (
    <div className="version-filters" data-testid="version-filters">
      {FILTER_FIELDS.map((f) => (
        <input key={f.key} className="path-input filter-input" data-testid={`filter-${f.key}`} aria-label={f.label} placeholder={`${f.label}: ${f.placeholder}`}
          value={filter[f.key] ?? ''} spellCheck={false}
          onChange={(e) => { const v = e.target.value.trim(); onChange({ ...filter, [f.key]: v || undefined }); }} />
      ))}
    </div>
  );
}

function Versions({ onPick }: { onPick(v: number): void }) {
  const f = useTimeline((s) => s.forensics);
  const selected = useTimeline((s) => s.selected);
  const [filter, setFilter] = useState<VersionFilter>({});
  const active = Object.values(filter).some((x) => x !== undefined);
  const newestFirst = useMemo(() => (f ? [...f.versions].reverse().filter((v) => !active || matchesFilter(v, filter)) : []), [f, filter, active]);
  const [warn, info] = useMemo(() => {
    const w = new Set<number>();
    const i = new Set<number>();
    for (const h of f?.heuristics ?? []) (h.severity === 'warn' ? w : i).add(h.version);
    return [w, i];
  }, [f]);
  if (!f) return null;
  const at = selected === null ? null : newestFirst.findIndex((v) => v.version === selected);
  return (
    <section className="side-block versions-block">
      <div className="block-title">Versions <span className="count" data-testid="timeline-version-count">{active ? `${newestFirst.length} of ${f.versions.length}` : f.versions.length}</span><span className="muted small">newest first</span></div>
      <FilterBar filter={filter} onChange={setFilter} />
      <div className="vrow vhead"><span className="num">Ver</span><span>Committed (UTC)</span><span>Operation</span><span className="num">+rows</span><span className="num">−rows</span><span>Who</span><span /></div>
      {newestFirst.length === 0 && <p className="muted small filter-empty" data-testid="filter-empty">No version matches the filter.</p>}
      {/* One tab stop for the list: Up/Down (newest first) move the selection, as Left/Right do elsewhere. */}
      <div role="listbox" tabIndex={0} aria-label="Versions, newest first" className="vlist-focus" data-testid="versions-listbox"
        aria-activedescendant={selected !== null ? `vrow-${selected}` : undefined}
        onKeyDown={(e) => {
          // The list is newest first (and maybe filtered): Down is the next older row shown.
          const d = e.key === 'ArrowDown' || e.key === 'ArrowLeft' ? 1 : e.key === 'ArrowUp' || e.key === 'ArrowRight' ? -1 : 0;
          if (d === 0 || newestFirst.length === 0) return;
          e.preventDefault();
          const i = selected === null ? -1 : newestFirst.findIndex((v) => v.version === selected);
          const next = newestFirst[i < 0 ? 0 : Math.min(newestFirst.length - 1, Math.max(0, i + d))];
          if (next && next.version !== selected) onPick(next.version);
        }}>
      <WindowedList
        items={newestFirst}
        rowHeight={ROW}
        scrollTo={at !== null && at >= 0 ? at : null}
        testId="timeline-versions"
        className="vlist"
        row={(v) => (
          <div key={v.version} id={`vrow-${v.version}`} role="option" aria-selected={v.version === selected} className={`vrow${v.version === selected ? ' selected' : ''}${v.readable ? '' : ' unreadable'}`} data-testid="timeline-row" data-version={v.version}
            onClick={() => onPick(v.version)} style={{ height: ROW }}>
            <span className="num mono strong">{v.version}</span>
            <span className="mono muted" title={v.timestampSource === 'file_mtime' ? 'the commit file\'s mtime (no commitInfo timestamp)' : undefined}>{v.timestamp ? formatUtc(v.timestamp) + (v.timestampSource === 'file_mtime' ? '*' : '') : '—'}</span>
            <span className="ellipsis">{v.operation ? <span className={`op op-${operationKind(v.operation)}`}>{v.operation}</span> : <span className="faint" title={v.unreadableReason}>{v.readable ? 'no commitInfo' : `unreadable: ${v.unreadableReason ?? ''}`}</span>}</span>
            <span className="num mono add">{v.addedRows === null ? '?' : v.addedRows ? `+${formatInt(v.addedRows)}` : ''}</span>
            <span className="num mono remove">{v.removedRows === null ? '?' : v.removedRows ? `−${formatInt(v.removedRows)}` : ''}</span>
            <span className="ellipsis muted small" data-testid="row-who" title={whoLine(v.who)}>{v.who.userName ?? v.who.userId ?? v.who.job?.name ?? ''}</span>
            {flagsOf(v, warn, info)}
          </div>
        )}
      />
      </div>
    </section>
  );
}

function Loaded() {
  const f = useTimeline((s) => s.forensics);
  const selected = useTimeline((s) => s.selected);
  const detail = useTimeline((s) => s.detail);
  const select = useTimeline((s) => s.select);
  const step = useTimeline((s) => s.step);
  const pick = useCallback((v: number) => void select(v), [select]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
      // The tab strip and the versions list handle their own arrow keys.
      if (t && typeof t.closest === 'function' && t.closest('[role=tablist], [role=listbox]')) return;
      if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
        e.preventDefault();
        step(e.key === 'ArrowLeft' ? -1 : 1);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [step]);

  if (!f) return null;
  if (f.versions.length === 0) {
    return <div className="panel-empty">The log holds no versions.</div>;
  }
  return (
    <>
      <TimelineChart versions={f.versions} heuristics={f.heuristics} selected={selected} onSelect={pick} />
      {f.notes.length > 0 && <div className="notes muted small">{f.notes.join(' · ')}</div>}
      <div className="investigate-split">
        <div className="investigate-left">
          <Findings onPick={pick} />
          <Versions onPick={pick} />
        </div>
        <div className="investigate-right">
          <CommitPanel detail={detail} onRetry={() => { if (detail) pick(detail.version); }} onStep={(d) => step(d)} />
        </div>
      </div>
    </>
  );
}

export function TimelineView() {
  const client = useClient();
  const table = useWorkbench((s) => s.table);
  const status = useTimeline((s) => s.status);
  const path = useTimeline((s) => s.path);
  const error = useTimeline((s) => s.error);
  const progress = useTimeline((s) => s.progress);
  const load = useTimeline((s) => s.load);
  const cancel = useTimeline((s) => s.cancel);
  const select = useTimeline((s) => s.select);
  const focus = useNav((s) => s.focus);
  // The timeline needs only the open's answer (the log is read): it is requested and drawn while
  // the versions list for the History tab is still on its way, not after it.
  const tablePath = table && table.status !== 'error' ? table.summary?.path ?? null : null;

  useEffect(() => {
    if (tablePath && tablePath !== timelineStoreFor(client).getState().path) void load(tablePath);
  }, [client, tablePath, load]);

  // A version another screen asked for (bisect's culprit).
  useEffect(() => {
    if (!focus || !tablePath || focus.seq <= handledFocus) return;
    handledFocus = focus.seq;
    const st = timelineStoreFor(client).getState();
    if (st.path !== tablePath || st.status === 'error') void load(tablePath, focus.version);
    else if (st.status === 'ready') void select(focus.version);
    else void load(tablePath, focus.version);
  }, [focus, client, tablePath, load, select]);

  // Opening, or failed to open: the table view says so (loading with Cancel, or the error).
  if (!table || !tablePath) return <TableGate />;

  return (
    <div className="investigate" data-testid="investigate">
      <Header />
      {(status === 'loading' || status === 'idle' || path !== tablePath) && (
        <JobProgress progress={progress} waiting="Reading the log…" onCancel={cancel} testId="investigate-loading" cancelTestId="investigate-cancel" />
      )}
      {/* The first page of the history stays on screen until the timeline is drawn. */}
      {(status === 'loading' || status === 'idle' || path !== tablePath) && <FirstPage />}
      {status === 'error' && error && path === tablePath && (
        <div className="pad"><ErrorPanel error={error} onRetry={() => { if (tablePath) void load(tablePath); }} /></div>
      )}
      {status === 'ready' && path === tablePath && <Loaded />}
    </div>
  );
}
