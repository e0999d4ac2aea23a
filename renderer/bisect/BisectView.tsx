// The visual bisect: choose a predicate, watch the strip of versions colour in as each probe's
// result arrives (in the order the search made them), then read the culprit and open it in the
// timeline.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { BisectResult, PredicateName, ProbeEvent, ProbeState } from '../../shared/bisect';
import { PREDICATE_NAMES } from '../../shared/bisect';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { useNav } from '../app/nav';
import { HistoryView } from '../history/HistoryView';
import { formatUtc, operationKind } from '../history/format';
import { formatInt } from '../timeline/timeline';
import { useClient, useWorkbench } from '../state/context';
import './bisect.css';
import { bisectStoreFor, useBisect } from './store';

const ABOUT: Record<PredicateName, string> = {
  'unique-keys': 'Good when no key value occurs on more than one row (rows with a null key are left out). Reads the key columns.',
  'no-null-keys': 'Good when no row has a null in a key column. Answered from the log’s null counts: no data file is read.',
  'row-count': 'Good when the version (or one partition) holds exactly the expected rows. Answered from the log alone.',
  'matches-source': 'Good when one partition’s rows equal the source’s rows in it. Needs a partition: a source moves on, older versions would all fail.',
};

/** Probes are revealed one by one, so the search's order can be seen: 110 ms each, faster for a
 *  long walk (the whole reveal stays under ~3 s). */
const revealMs = (probes: number): number => Math.max(30, Math.min(110, 3000 / Math.max(1, probes)));

type CellState = ProbeState | 'none';

function PredicateForm({ onRun }: { onRun(): void }) {
  const form = useBisect((s) => s.form);
  const setForm = useBisect((s) => s.setForm);
  const status = useBisect((s) => s.status);
  const cancel = useBisect((s) => s.cancel);
  const p = form.predicate;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onRun();
  };
  return (
    <form className="bisect-form" onSubmit={submit} data-testid="bisect-form">
      <label className="field">
        <span>Predicate</span>
        <select value={p} data-testid="bisect-predicate" onChange={(e) => setForm({ predicate: e.target.value as PredicateName })}>
          {PREDICATE_NAMES.map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      </label>
      {(p === 'unique-keys' || p === 'no-null-keys') && (
        <label className="field grow">
          <span>Key columns</span>
          <input className="path-input" data-testid="bisect-keys" placeholder="order_id (comma-separated)" value={form.keys} spellCheck={false}
            onChange={(e) => setForm({ keys: e.target.value })} />
        </label>
      )}
      {p === 'row-count' && (
        <label className="field">
          <span>Expected rows</span>
          <input className="path-input" data-testid="bisect-expect" inputMode="numeric" placeholder="5400" value={form.expect}
            onChange={(e) => setForm({ expect: e.target.value })} />
        </label>
      )}
      {p === 'matches-source' && (
        <label className="field grow">
          <span>Source file</span>
          <input className="path-input" data-testid="bisect-source" placeholder="/path/to/source.parquet" value={form.source} spellCheck={false}
            onChange={(e) => setForm({ source: e.target.value })} />
        </label>
      )}
      {(p === 'row-count' || p === 'matches-source') && (
        <label className="field">
          <span>Partition{p === 'row-count' ? ' (optional)' : ''}</span>
          <input className="path-input" data-testid="bisect-partition" placeholder="dt=2026-08-12" value={form.partition} spellCheck={false}
            onChange={(e) => setForm({ partition: e.target.value })} />
        </label>
      )}
      <div className="field-actions">
        {status === 'running' ? (
          <button type="button" className="btn" data-testid="bisect-cancel" onClick={cancel}>Cancel</button>
        ) : (
          <button type="submit" className="btn btn-primary" data-testid="bisect-run">Run bisect</button>
        )}
      </div>
      <p className="field-about">{ABOUT[p]}</p>
    </form>
  );
}

function Strip({ latest, cells, current, result }: { latest: number; cells: CellState[]; current: number | null; result: BisectResult | null }) {
  const n = latest + 1;
  const size = n <= 64 ? 'l' : n <= 600 ? 'm' : 's';
  const label = (v: number, st: CellState, detail?: string) => `v${v}: ${st === 'none' ? 'not evaluated' : st}${detail ? ` (${detail})` : ''}`;
  const details = useMemo(() => new Map((result?.probes ?? []).map((p) => [p.version, p.detail])), [result]);
  const out = [];
  for (let v = 0; v < n; v++) {
    const st = cells[v] ?? 'none';
    const cls = [`cell`, `cell-${st}`];
    if (v === current) cls.push('current');
    if (result && result.firstBad === v) cls.push('culprit');
    if (result && result.lastGood === v) cls.push('lastgood');
    out.push(
      <div key={v} className={cls.join(' ')} data-testid="strip-cell" data-version={v} data-state={st} title={label(v, st, details.get(v))}>
        {size === 'l' ? v : null}
      </div>,
    );
  }
  return (
    <div className={`strip strip-${size}`} data-testid="bisect-strip" data-versions={n}>
      {out}
    </div>
  );
}

function Legend() {
  return (
    <div className="strip-legend">
      <span><i className="cell cell-good" />good</span>
      <span><i className="cell cell-bad" />bad</span>
      <span><i className="cell cell-unreadable" />unreadable</span>
      <span><i className="cell cell-none" />not evaluated</span>
      <span><i className="legend-culprit" />first bad</span>
    </div>
  );
}

function ProbeLog({ probes, revealed }: { probes: ProbeEvent[]; revealed: number }) {
  const shown = probes.slice(0, revealed);
  return (
    <section className="probe-log" data-testid="probe-log">
      <h3>Probes <span className="count">{shown.length}</span></h3>
      {shown.length === 0 ? <p className="muted small">The versions the search evaluates are listed here, in order.</p> : (
        <ol>
          {shown.map((p) => (
            <li key={p.probeIndex} data-testid="probe-item" data-state={p.state}>
              <span className="mono muted">#{p.probeIndex + 1}</span>
              <span className="mono strong">v{p.version}</span>
              <span className={`pstate pstate-${p.state}`}>{p.state}</span>
              {p.detail && <span className="muted small ellipsis" title={p.detail}>{p.detail}</span>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function ResultPanel({ r, elapsed }: { r: BisectResult; elapsed: number }) {
  const openVersion = useNav((s) => s.openVersion);
  const c = r.culprit;
  const recovered = r.transitions.filter((t) => t.kind === 'recovered');
  return (
    <section className={`bisect-result outcome-${r.outcome}`} data-testid="bisect-result" data-outcome={r.outcome} data-first-bad={r.firstBad ?? ''}>
      {r.outcome === 'bad' && (
        <h2 data-testid="bisect-headline">First bad version <span className="mono">v{r.firstBad}</span>{r.lastGood !== null && <span className="sub"> · last good v{r.lastGood}</span>}</h2>
      )}
      {r.outcome === 'not_recoverable' && (
        <h2 data-testid="bisect-headline">Not recoverable: it already fails at <span className="mono">v{r.firstBad ?? r.oldestReadableVersion}</span>, the oldest version this log still holds</h2>
      )}
      {r.outcome === 'clean' && <h2 data-testid="bisect-headline">Clean: every examined version passes</h2>}
      {r.outcome === 'unreadable' && <h2 data-testid="bisect-headline">No version could be evaluated</h2>}

      {r.healed && (
        <div className="banner healed" data-testid="bisect-healed">
          Healed: broke at v{r.firstBad}{recovered.length ? `, recovered at v${recovered.map((t) => t.to).join(', v')}` : ''}. The latest version passes again;
          the incident lives only in the history.
        </div>
      )}
      {r.outcome === 'not_recoverable' && (
        <div className="banner gone" data-testid="bisect-not-recoverable">
          The versions before v{r.oldestReadableVersion} can no longer be read{r.unreadableVersions.length ? ` (${r.unreadableVersions.length} unreadable)` : ''}: the true first bad version is not recoverable from this table. No first bad version is invented.
        </div>
      )}

      {c && (
        <div className="culprit" data-testid="bisect-culprit">
          <div className="culprit-head">
            <span className="muted">{r.outcome === 'bad' ? 'Culprit commit' : 'Oldest failing commit'}</span>
            <span className="mono strong">v{c.version}</span>
            <span className={`op op-${operationKind(c.operation)}`}>{c.operation ?? 'no commitInfo'}</span>
            <span className="mono muted">{c.timestamp ? `${formatUtc(c.timestamp)} UTC` : ''}</span>
            <span className="spacer" />
            <button type="button" className="btn" data-testid="open-culprit" onClick={() => openVersion(c.version)}>Open v{c.version} in the timeline</button>
          </div>
          <dl className="kv">
            <div><dt>Parameters</dt><dd className="mono">{Object.keys(c.operationParameters).length ? Object.entries(c.operationParameters).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join('  ') : '—'}</dd></div>
            <div><dt>Files</dt><dd className="mono"><span className="add">+{c.addedFiles}</span> <span className="remove">−{c.removedFiles}</span></dd></div>
            <div><dt>Rows</dt><dd className="mono"><span className="add">+{formatInt(c.addedRows)}</span> <span className="remove">−{formatInt(c.removedRows)}</span></dd></div>
            <div><dt>Partitions</dt><dd className="mono">{c.partitions.length ? c.partitions.join(', ') : '—'}</dd></div>
          </dl>
          {c.addedPaths.length > 0 && <div className="paths mono small" title={c.addedPaths.join('\n')}>+ {c.addedPaths.slice(0, 3).join('  ')}{c.addedPaths.length > 3 ? ' …' : ''}</div>}
          {c.removedPaths.length > 0 && <div className="paths mono small remove" title={c.removedPaths.join('\n')}>− {c.removedPaths.slice(0, 3).join('  ')}{c.removedPaths.length > 3 ? ' …' : ''}</div>}
        </div>
      )}

      <dl className="kv facts-kv">
        <div><dt>Search</dt><dd>{r.exhaustive ? 'every version walked' : 'binary search'}</dd></div>
        <div><dt>Monotone</dt><dd>{r.monotone === null ? 'assumed, not checked' : r.monotone ? 'yes (measured)' : 'no: the state changed more than once'}</dd></div>
        <div><dt>Examined</dt><dd className="mono">{r.examined} of {r.latestVersion + 1} versions</dd></div>
        <div><dt>Files read</dt><dd className="mono">{r.filesRead} (+{r.filesFromCache} from cache)</dd></div>
        <div><dt>Took</dt><dd className="mono">{(elapsed / 1000).toFixed(1)} s</dd></div>
        {r.transitions.length > 0 && <div><dt>Transitions</dt><dd className="mono">{r.transitions.map((t) => `${t.kind} v${t.from}→v${t.to}`).join(' · ')}</dd></div>}
      </dl>
      <p className="semantics small"><span className="muted">Predicate:</span> {r.semantics}</p>
      {r.notes.length > 0 && <ul className="notes-list small">{r.notes.map((n, i) => <li key={i}>{n}</li>)}</ul>}
    </section>
  );
}

export function BisectView() {
  const client = useClient();
  const table = useWorkbench((s) => s.table);
  const st = useBisect((s) => s);
  // Coming back to the tab after a search shows it finished, not replayed.
  const [revealed, setRevealed] = useState(() => { const b = bisectStoreFor(client).getState(); return b.status === 'done' ? b.probes.length : 0; });
  const tablePath = table?.status === 'ready' ? table.summary?.path ?? null : null;
  const latest = table?.summary?.version ?? -1;
  const stale = st.path !== null && st.path !== tablePath;

  // Reveal the probes one at a time, in the order they were made.
  useEffect(() => {
    if (revealed > st.probes.length) { setRevealed(st.probes.length); return; }
    if (revealed === st.probes.length) return;
    const t = setTimeout(() => setRevealed((r) => r + 1), revealMs(st.result?.examined ?? st.probes.length));
    return () => clearTimeout(t);
  }, [revealed, st.probes.length, st.result]);

  if (!table || table.status !== 'ready' || !tablePath) return <HistoryView />;

  const probes = stale ? [] : st.probes;
  const cells: CellState[] = [];
  const shown = probes.slice(0, revealed);
  for (const p of shown) cells[p.version] = p.state;
  const allShown = revealed >= probes.length;
  const result = !stale && st.status === 'done' && allShown ? st.result : null;
  // Versions the log cannot produce are known before any probe (the plan), and in the result.
  const unreadable = result?.unreadableVersions ?? (stale ? [] : st.plan?.unreadableVersions ?? []);
  for (const v of unreadable) if (!cells[v]) cells[v] = 'unreadable';
  const current = shown.length && !result ? shown[shown.length - 1].version : null;
  const planned = stale ? null : st.plan;
  const stripLatest = stale || st.latest < 0 ? latest : Math.max(latest, st.latest, planned?.latestVersion ?? -1);
  const running = st.status === 'running' || (st.status === 'done' && !allShown);
  const last = shown[shown.length - 1];

  return (
    <div className="bisect" data-testid="bisect" data-path={tablePath}>
      <div className="bisect-top">
        <div className="bisect-title">
          <h1>Bisect</h1>
          <span className="muted">the first version of <span className="mono">{table.summary?.name}</span> where a predicate fails</span>
        </div>
        <PredicateForm onRun={() => { setRevealed(0); void st.run(tablePath, latest); }} />
      </div>
      <section className="strip-section">
        <div className="strip-bar">
          <h3>Versions 0–{stripLatest}</h3>
          <Legend />
          <span className="spacer" />
          <span className="strip-status" data-testid="bisect-status" data-status={stale ? 'idle' : st.status}>
            {running && <span className="spinner" aria-hidden="true" />}
            {running ? `${planned ? (planned.exhaustive ? 'walking every version' : 'binary search') : 'replaying the log'}${last ? ` · probe ${last.probeIndex + 1}: v${last.version} ${last.state}` : '…'}`
              : result ? `${result.examined} probes · ${result.exhaustive ? 'exhaustive' : 'binary search'}`
                : st.status === 'error' && !stale ? 'stopped' : 'not run yet'}
          </span>
        </div>
        <Strip latest={stripLatest} cells={cells} current={current} result={result} />
      </section>
      <div className="bisect-bottom">
        <div className="bisect-main">
          {!stale && st.status === 'error' && st.error && (
            <ErrorPanel error={st.error} onRetry={st.error.code === 'usage' ? undefined : () => { setRevealed(0); void st.run(tablePath, latest); }} onDismiss={st.reset} />
          )}
          {result && <ResultPanel r={result} elapsed={st.finishedAt - st.startedAt} />}
          {running && (
            <div className="panel-empty" data-testid="bisect-running">
              <p>Searching… each cell takes its colour as its version’s result arrives.</p>
              {st.status === 'running' && <JobProgress progress={st.progress} waiting="Replaying the log…" onCancel={st.cancel} testId="bisect-progress" />}
            </div>
          )}
          {(stale || st.status === 'idle') && (
            <div className="panel-empty" data-testid="bisect-idle">
              Choose a predicate and run: under 48 versions every version is walked (a healed incident shows); above, a binary search probes a few.
            </div>
          )}
        </div>
        <ProbeLog probes={probes} revealed={Math.min(revealed, probes.length)} />
      </div>
    </div>
  );
}
