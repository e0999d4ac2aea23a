// The run history: every proof, reconcile and bisect run (this window's and the CLI's that share
// the app-data folder), newest first, from the local DuckDB file the engine keeps.
import { useEffect, useState } from 'react';
import { examinedText, type BisectResult } from '../../shared/bisect';
import type { RunRecord } from '../../shared/proof';
import type { ReconcileResult } from '../../shared/reconcile';
import { ReconcileResultView } from '../ui/ResultView';
import { useNav } from '../app/nav';
import { ErrorPanel } from '../ui/ErrorPanel';
import { formatUtc } from '../ui/format';
import { useRuns, type RunsFilter } from './store';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));

/** A past bisect as it ended: the outcome, the culprit commit, every probe in the order made. */
function BisectRun({ r }: { r: BisectResult }) {
  const openVersion = useNav((s) => s.openVersion);
  return (
    <div className="run-full" data-testid="run-full-bisect">
      <p><b>{r.outcome}</b>{r.firstBad !== null ? <> · first bad <button type="button" className="btn btn-small" onClick={() => openVersion(r.firstBad!)}>v{r.firstBad} in the timeline</button></> : null}
        {r.lastGood !== null ? ` · last good v${r.lastGood}` : ''} · examined {examinedText(r, { of: r.latestVersion + 1, how: r.exhaustive ? 'every version walked' : 'binary search' })}</p>
      {r.culprit && <p className="mono small">v{r.culprit.version} {r.culprit.operation ?? ''} {r.culprit.when} · +{str(r.culprit.addedRows)} −{str(r.culprit.removedRows)} rows · {r.culprit.partitions.join(', ')}</p>}
      <p className="muted small">{r.semantics}</p>
      <ol className="run-list">{r.probes.map((p) => <li key={p.probeIndex} className="mono small">#{p.probeIndex + 1} v{p.version} <b>{p.state}</b>{p.detail ? ` · ${p.detail}` : ''}</li>)}</ol>
    </div>
  );
}

/** The result the run recorded in full (newer runs), reopened as the screen showed it. */
function FullResult({ run }: { run: RunRecord }) {
  const s = isObj(run.summary) ? run.summary : {};
  const [shown, setShown] = useState(false);
  const full = isObj(s.result) ? s.result : null;
  if (!full) return null;
  return (
    <div className="run-full-wrap">
      <button type="button" className="btn btn-small" data-testid="run-open-full" aria-expanded={shown} onClick={() => setShown(!shown)}>
        {shown ? 'Hide the full result' : 'Open the full result'}
      </button>
      {shown && (run.kind === 'reconcile'
        ? <div data-testid="run-full-reconcile"><ReconcileResultView result={full as unknown as ReconcileResult} exportable={false} /></div>
        : run.kind === 'bisect' ? <BisectRun r={full as unknown as BisectResult} /> : null)}
    </div>
  );
}

/** What a run's summary says, per kind (the summaries are what the engine recorded; all optional). */
function RunDetail({ run }: { run: RunRecord }) {
  const s = isObj(run.summary) ? run.summary : {};
  const err = isObj(s.error) ? s.error : null;
  const facts: [string, string][] = [];
  if (run.kind === 'reconcile') {
    facts.push(['table', str(s.table)], ['source', str(s.source)], ['level', str(s.level)], ['verdict', str(s.verdict)], ['version', str(s.targetVersion)], ['rows', `source ${str(s.sourceRows)} · target ${str(s.targetRows)}`]);
  } else if (run.kind === 'bisect') {
    const pred = isObj(s.predicate) ? s.predicate : {};
    facts.push(['table', str(s.root)], ['predicate', str(pred.predicate)], ['outcome', str(s.outcome)], ['first bad', str(s.firstBad)], ['last good', str(s.lastGood)], ['examined', str(s.examined)]);
  } else if (run.kind === 'mutate') {
    const o = isObj(s.overall) ? s.overall : {};
    const score = typeof o.score === 'number' ? `${Math.round(o.score * 1000) / 10}%` : '—';
    facts.push(['table', str(s.table)], ['source', str(s.source)], ['score', score], ['killed', str(o.killed)], ['survived', str(o.survived)], ['named', str(o.named)], ['seed', str(s.seed)]);
  } else {
    facts.push(['engines', arr(s.engines).map(str).join(' → ')], ['passed', str(s.passed)], ['took', s.ms !== undefined ? `${str(s.ms)} ms` : '—']);
  }
  const findings = arr(s.findings).filter(isObj);
  const checks = arr(s.checks).filter(isObj);
  return (
    <div className="run-detail" data-testid="run-detail">
      <dl className="run-facts">
        {facts.filter(([, v]) => v !== '—' && v !== '').map(([k, v]) => <div key={k}><dt>{k}</dt><dd className="mono" title={v}>{v}</dd></div>)}
      </dl>
      {err && <p className="field-error">{str(err.code)}: {str(err.message)}</p>}
      {findings.length > 0 && (
        <ul className="run-list">{findings.map((f, i) => <li key={i}><code>{str(f.mode)}</code> <span className={`pill pill-${f.blocking === true ? 'bad' : 'info'}`}>{f.blocking === true ? 'blocking' : 'reported'}</span> {str(f.summary)}</li>)}</ul>
      )}
      {checks.length > 0 && (
        <ul className="run-list checks">{checks.map((c, i) => <li key={i}><span className={`pill pill-${c.status === 'pass' ? 'ok' : c.status === 'fail' ? 'bad' : 'warn'}`}>{str(c.status)}</span> <code>{str(c.name)}</code> <span className="muted">{str(c.summary)}</span></li>)}</ul>
      )}
      <FullResult run={run} />
    </div>
  );
}

function statusClass(s: string): string {
  if (s === 'pass' || s === 'clean') return 'ok';
  if (s === 'fail' || s === 'found' || s === 'bad' || s === 'error') return 'bad';
  return 'warn';
}

export function RunsView() {
  const filter = useRuns((s) => s.filter);
  const runs = useRuns((s) => s.runs);
  const error = useRuns((s) => s.error);
  const loading = useRuns((s) => s.loading);
  const open = useRuns((s) => s.open);
  const enter = useRuns((s) => s.enter);
  const setFilter = useRuns((s) => s.setFilter);
  const load = useRuns((s) => s.load);
  const toggle = useRuns((s) => s.toggle);

  useEffect(() => {
    void enter();
  }, [enter]);

  return (
    <div className="runs-view" data-testid="runs-view">
      <header className="rc-header">
        <h1>Runs</h1>
        <span className="muted">every proof, reconcile and bisect, kept in the app-data folder</span>
        <span className="spacer" />
        <div className="levels compact" role="radiogroup" aria-label="Kind">
          {(['all', 'reconcile', 'bisect', 'proof', 'mutate'] as RunsFilter[]).map((k) => (
            <button key={k} type="button" role="radio" aria-checked={k === filter} className={`level${k === filter ? ' active' : ''}`} data-testid={`runs-filter-${k}`} onClick={() => void setFilter(k)}>
              <span className="level-name">{k}</span>
            </button>
          ))}
        </div>
        <button type="button" className="btn" data-testid="runs-refresh" onClick={() => void load()} disabled={loading}>Refresh</button>
      </header>
      {error ? (
        <div className="pad"><ErrorPanel error={error} onRetry={() => void load()} /></div>
      ) : runs === null ? (
        <div className="loading"><div className="loading-row"><span className="spinner" aria-hidden="true" /> Reading the run history…</div></div>
      ) : runs.length === 0 ? (
        <div className="rc-empty" data-testid="runs-empty">No {filter === 'all' ? '' : `${filter} `}runs yet. Reconcile a table, bisect its history or run a proof: each run is listed here.</div>
      ) : (
        <div className="grid-wrap">
          <table className="grid" data-testid="runs-table">
            <thead><tr><th>Started (UTC)</th><th>Kind</th><th>Status</th><th>What</th><th className="num">Took</th></tr></thead>
            <tbody>
              {runs.map((r) => {
                const took = r.finishedAt ? Date.parse(r.finishedAt) - Date.parse(r.startedAt) : null;
                const expanded = open?.id === r.id ? open.loaded : null;
                return [
                  <tr key={r.id} data-testid="run-row" data-kind={r.kind} data-status={r.status} className={`runs-row${expanded ? ' open' : ''}`} onClick={() => void toggle(r.id)} title="Show this run"
                    tabIndex={0} aria-expanded={!!expanded} onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); void toggle(r.id); } }}>
                    <td className="mono">{formatUtc(Date.parse(r.startedAt))}</td>
                    <td><span className={`op op-${r.kind === 'proof' ? 'maintenance' : r.kind === 'bisect' ? 'merge' : 'create'}`}>{r.kind}</span></td>
                    <td><span className={`pill pill-${statusClass(r.status)}`}>{r.status}</span></td>
                    <td className="ellipsis-wide" title={r.title}>{r.title}</td>
                    <td className="num mono muted">{took !== null && Number.isFinite(took) ? `${(took / 1000).toFixed(1)} s` : '—'}</td>
                  </tr>,
                  expanded && (
                    <tr key={`${r.id}-detail`} className="run-detail-row">
                      <td colSpan={5}>
                        {expanded.status === 'loading' ? <span className="muted">Reading the run…</span>
                          : expanded.status === 'error' ? <ErrorPanel error={expanded.error} />
                            : <RunDetail run={expanded.run} />}
                      </td>
                    </tr>
                  ),
                ];
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
