// The visual bisect: choose a predicate, watch the strip of versions colour in LIVE as each
// probe's result arrives from the engine, then read the answer (the result's one headline, the
// same the CLI prints) and open the culprit in the timeline. Banner and strip read one result.
import { useEffect, type FormEvent } from 'react';
import type { BisectResult, PredicateName, ProbeEvent, ProbeState } from '../../shared/bisect';
import { examinedText, PREDICATE_NAMES } from '../../shared/bisect';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { useNav } from '../app/nav';
import { TableGate } from '../app/TableGate';
import { formatUtc, operationKind } from '../ui/format';
import { formatInt } from '../ui/format';
import { useClient, useWorkbench } from '../state/context';
import { timelineStoreFor, useTimeline } from '../state/timeline';
import { formExamples, type FormExamples } from './examples';
import { whoLine } from '../ui/who';
import './bisect.css';
import { useBisect } from '../state/bisect';

const ABOUT: Record<PredicateName, string> = {
  'unique-keys': 'Good when no key value occurs on more than one row (rows with a null key are left out). Reads the key columns.',
  'no-null-keys': 'Good when no row has a null in a key column. Answered from the log’s null counts: no data file is read.',
  'row-count': 'Good when one partition holds exactly the expected rows (before it existed is neither good nor bad). Answered from the log alone. The whole table only if you accept its moving total.',
  'matches-source': 'Good when one partition’s rows equal the source’s rows in it. Needs a partition: a source moves on, older versions would all fail.',
};

type CellState = ProbeState | 'none';

/** Above this many versions the strip draws only the versions with a state (a sparse log). */
const MAX_CELLS = 12_000;

const STATE_LABEL: Record<CellState, string> = {
  good: 'good', bad: 'bad', unreadable: 'unreadable', before_partition: 'before the partition existed', none: 'not evaluated',
};

function PredicateForm({ onRun, examples }: { onRun(): void; examples: FormExamples }) {
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
          <input className="path-input" data-testid="bisect-expect" inputMode="numeric" placeholder={examples.rows} value={form.expect}
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
          <span>Partition</span>
          <input className="path-input" data-testid="bisect-partition" placeholder={examples.partition} value={form.partition} spellCheck={false}
            onChange={(e) => setForm({ partition: e.target.value })} />
        </label>
      )}
      {p === 'row-count' && !form.partition.trim() && (
        <label className="field check" title="The table's total moves with every append: older versions legitimately hold fewer rows.">
          <input type="checkbox" data-testid="bisect-allow-moving" checked={form.allowMoving} onChange={(e) => setForm({ allowMoving: e.target.checked })} />
          <span>Whole table (accept a moving total)</span>
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

function Strip({ latest, cells, reasons, current, result }: { latest: number; cells: Map<number, CellState>; reasons: Map<number, string>; current: number | null; result: BisectResult | null }) {
  const n = latest + 1;
  const size = n <= 64 ? 'l' : n <= 600 ? 'm' : 's';
  const label = (v: number, st: CellState, detail?: string) => `v${v}: ${STATE_LABEL[st]}${detail ? ` (${detail})` : ''}`;
  // Versions with a state, and (a dense log) every version up to the latest: never a loop over a
  // numeric range of millions.
  const versions = n <= MAX_CELLS ? Array.from({ length: Math.max(0, n) }, (_, v) => v) : [...cells.keys()].sort((a, b) => a - b);
  const out = versions.map((v) => {
    const st = cells.get(v) ?? 'none';
    const cls = [`cell`, `cell-${st}`];
    if (v === current) cls.push('current');
    if (result && result.firstBad === v) cls.push('culprit');
    if (result && result.lastGood === v) cls.push('lastgood');
    return (
      <div key={v} className={cls.join(' ')} data-testid="strip-cell" data-version={v} data-state={st} title={label(v, st, reasons.get(v))}>
        {size === 'l' ? v : null}
      </div>
    );
  });
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
      <span><i className="cell cell-before_partition" />before the partition existed</span>
      <span><i className="cell cell-none" />not evaluated</span>
      <span><i className="legend-culprit" />first bad</span>
    </div>
  );
}

function ProbeLog({ probes }: { probes: ProbeEvent[] }) {
  const shown = probes;
  return (
    <section className="probe-log" data-testid="probe-log">
      <h3>Probes <span className="count">{shown.length}</span></h3>
      {shown.length === 0 ? <p className="muted small">The versions the search evaluates are listed here, in order.</p> : (
        <ol>
          {shown.map((p) => (
            <li key={p.probeIndex} data-testid="probe-item" data-state={p.state}>
              <span className="mono muted">#{p.probeIndex + 1}</span>
              <span className="mono strong">v{p.version}</span>
              <span className={`pstate pstate-${p.state}`}>{STATE_LABEL[p.state]}</span>
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
  return (
    <section className={`bisect-result outcome-${r.outcome}`} data-testid="bisect-result" data-outcome={r.outcome} data-first-bad={r.firstBad ?? ''}>
      {/* The result's own one-line answer: the CLI prints the same line, the report leads with it. */}
      <h2 data-testid="bisect-headline">{r.headline}</h2>
      {r.healed && (
        <div className="banner healed" data-testid="bisect-healed">
          Healed: the latest version (v{r.latestVersion}) passes again; the incident lives only in the history.
        </div>
      )}
      {r.outcome === 'not_monotone' && (
        <div className="banner gone" data-testid="bisect-not-monotone">
          The predicate fails at the oldest evaluated version and passes at the latest: it is not monotone over this history, so no version is named as the culprit. Look at the transitions below, or restrict the predicate to a closed partition.
        </div>
      )}
      {r.outcome === 'not_recoverable' && (
        <div className="banner gone" data-testid="bisect-not-recoverable">
          The versions before v{r.oldestReadableVersion} can no longer be read{r.unreadableVersions.length ? ` (${r.unreadableVersions.length} unreadable)` : ''}: the true first bad version is not recoverable from this table. No first bad version is invented.
        </div>
      )}
      {r.outcome === 'unreadable' && r.unreadable.length > 0 && (
        <div className="banner gone" data-testid="bisect-unreadable">
          {r.unreadable.length} version(s) cannot be read: {[...new Set(r.unreadable.map((u) => u.reason))].slice(0, 2).join('; ')}
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
            <div><dt>Rows</dt><dd className="mono"><span className="add">+{formatInt(c.addedRows)}</span> <span className="remove">−{formatInt(c.removedRows)}</span>{c.dvDeletedRows ? ` (of which −${formatInt(c.dvDeletedRows)} by deletion vectors)` : ''}</dd></div>
            <div><dt>Partitions</dt><dd className="mono">{c.partitions.length ? c.partitions.join(', ') : '—'}</dd></div>
            {whoLine(c.who) && <div><dt>Who</dt><dd data-testid="culprit-who">{whoLine(c.who)}</dd></div>}
          </dl>
          {c.addedPaths.length > 0 && <div className="paths mono small" title={c.addedPaths.join('\n')}>+ {c.addedPaths.slice(0, 3).join('  ')}{c.addedPaths.length > 3 ? ' …' : ''}</div>}
          {c.removedPaths.length > 0 && <div className="paths mono small remove" title={c.removedPaths.join('\n')}>− {c.removedPaths.slice(0, 3).join('  ')}{c.removedPaths.length > 3 ? ' …' : ''}</div>}
          {c.rewrittenPaths.length > 0 && <div className="paths mono small" title={c.rewrittenPaths.join('\n')}>rewritten in place: {c.rewrittenPaths.slice(0, 3).join('  ')}{c.rewrittenPaths.length > 3 ? ' …' : ''}</div>}
        </div>
      )}

      <dl className="kv facts-kv">
        <div><dt>Search</dt><dd>{r.exhaustive ? 'every version walked' : 'binary search'}</dd></div>
        <div><dt>Monotone</dt><dd>{r.monotone === null ? 'assumed, not checked' : r.monotone ? 'yes (measured)' : 'no: the state changed more than once'}</dd></div>
        <div><dt>Examined</dt><dd className="mono" data-testid="bisect-examined">{examinedText(r, { of: r.latestVersion + 1 })}</dd></div>
        {r.partitionAppearsAt !== null && <div><dt>Partition</dt><dd className="mono">first file at v{r.partitionAppearsAt}</dd></div>}
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
  const table = useWorkbench((s) => s.table);
  const st = useBisect((s) => s);
  const tablePath = table?.status === 'ready' ? table.summary?.path ?? null : null;
  const latest = table?.summary?.latestVersion ?? -1;
  const stale = st.path !== null && st.path !== tablePath;

  // The form's examples are the open table's (its header and timeline, read once for both screens).
  const overview = useTimeline((s) => (s.path === tablePath ? s.overview : null));
  const forensics = useTimeline((s) => (s.path === tablePath ? s.forensics : null));
  const timeline = timelineStoreFor(useClient());
  useEffect(() => {
    const t = timeline.getState();
    if (tablePath && t.path !== tablePath) void t.load(tablePath);
  }, [tablePath, timeline]);
  const examples = formExamples(overview, forensics);

  if (!table || table.status !== 'ready' || !tablePath) return <TableGate />;

  // Every cell from one source: the plan (known before any probe), then each probe as its event
  // arrives (live, not replayed afterwards), then the result, which is the record.
  const probes = stale ? [] : st.probes;
  const planned = stale ? null : st.plan;
  const result = !stale && st.status === 'done' ? st.result : null;
  const cells = new Map<number, CellState>();
  const reasons = new Map<number, string>();
  for (const u of result?.unreadable ?? planned?.unreadable ?? []) { cells.set(u.version, 'unreadable'); reasons.set(u.version, u.reason); }
  const appears = result?.partitionAppearsAt ?? planned?.partitionAppearsAt ?? null;
  const stripLatest = stale || st.latest < 0 ? latest : Math.max(latest, st.latest, planned?.latestVersion ?? -1);
  if (appears !== null && stripLatest + 1 <= MAX_CELLS) for (let v = 0; v < appears; v++) if (!cells.has(v)) cells.set(v, 'before_partition');
  for (const p of result?.probes ?? probes) { cells.set(p.version, p.state); if (p.detail) reasons.set(p.version, p.detail); }
  const current = probes.length && !result ? probes[probes.length - 1].version : null;
  const running = st.status === 'running';
  const last = probes[probes.length - 1];

  return (
    <div className="bisect" data-testid="bisect" data-path={tablePath}>
      <div className="bisect-top">
        <div className="bisect-title">
          <h1>Bisect</h1>
          <span className="muted">the first version of <span className="mono">{table.summary?.name}</span> where a predicate fails</span>
        </div>
        <PredicateForm onRun={() => { void st.run(tablePath, latest); }} examples={examples} />
      </div>
      <section className="strip-section">
        <div className="strip-bar">
          <h3>Versions 0–{stripLatest}</h3>
          <Legend />
          <span className="spacer" />
          <span className="strip-status" data-testid="bisect-status" data-status={stale ? 'idle' : st.status} data-probes={probes.length}>
            {running && <span className="spinner" aria-hidden="true" />}
            {running ? `${planned ? (planned.exhaustive ? 'walking every version' : 'binary search') : 'replaying the log'}${last ? ` · probe ${last.probeIndex + 1}: v${last.version} ${STATE_LABEL[last.state]}` : '…'}`
              : result ? `examined ${examinedText(result, { how: result.exhaustive ? 'exhaustive' : 'binary search' })}`
                : st.status === 'error' && !stale ? 'stopped' : 'not run yet'}
          </span>
        </div>
        <Strip latest={stripLatest} cells={cells} reasons={reasons} current={current} result={result} />
      </section>
      <div className="bisect-bottom">
        <div className="bisect-main">
          {!stale && st.status === 'error' && st.error && (
            <ErrorPanel error={st.error} onRetry={st.error.code === 'usage' ? undefined : () => { void st.run(tablePath, latest); }} onDismiss={st.reset} />
          )}
          {result && <ResultPanel r={result} elapsed={st.finishedAt - st.startedAt} />}
          {running && (
            <div className="panel-empty" data-testid="bisect-running">
              <p>Searching… each cell takes its colour as its version’s result arrives.</p>
              <JobProgress progress={st.progress} waiting="Replaying the log…" onCancel={st.cancel} testId="bisect-progress" />
            </div>
          )}
          {(stale || st.status === 'idle') && (
            <div className="panel-empty" data-testid="bisect-idle">
              Choose a predicate and run: under 48 versions every version is walked (a healed incident shows); above, a binary search probes a few.
            </div>
          )}
        </div>
        <ProbeLog probes={result?.probes ?? probes} />
      </div>
    </div>
  );
}
