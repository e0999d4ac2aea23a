// The run history: every proof, reconcile and bisect run (this window's and the CLI's that share
// the app-data folder), newest first, from the local DuckDB file the engine keeps.
import { useCallback, useEffect, useState } from 'react';
import { ApiCallError } from '../../shared/api';
import { toErrorData, type LakerecErrorData } from '../../shared/errors';
import type { RunKind, RunRecord } from '../../shared/proof';
import { ErrorPanel } from '../app/ErrorPanel';
import { formatUtc } from '../history/format';
import { useClient } from '../state/context';
import '../reconcile/screens.css';

type Filter = RunKind | 'all';

function statusClass(s: string): string {
  if (s === 'pass' || s === 'clean') return 'ok';
  if (s === 'fail' || s === 'found' || s === 'bad' || s === 'error') return 'bad';
  return 'warn';
}

export function RunsView() {
  const client = useClient();
  const [filter, setFilter] = useState<Filter>('all');
  const [runs, setRuns] = useState<RunRecord[] | null>(null);
  const [error, setError] = useState<LakerecErrorData | null>(null);
  const [loading, setLoading] = useState(false);

  const load = useCallback(async () => {
    setLoading(true);
    setError(null);
    try {
      const r = await client.invoke('listRuns', filter === 'all' ? {} : { kind: filter });
      setRuns(r.runs);
    } catch (e) {
      setError(e instanceof ApiCallError ? e.data : toErrorData(e));
    } finally {
      setLoading(false);
    }
  }, [client, filter]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <div className="runs-view" data-testid="runs-view">
      <header className="rc-header">
        <h1>Runs</h1>
        <span className="muted">every proof, reconcile and bisect, kept in the app-data folder</span>
        <span className="spacer" />
        <div className="levels compact" role="radiogroup" aria-label="Kind">
          {(['all', 'reconcile', 'bisect', 'proof'] as Filter[]).map((k) => (
            <button key={k} type="button" role="radio" aria-checked={k === filter} className={`level${k === filter ? ' active' : ''}`} data-testid={`runs-filter-${k}`} onClick={() => setFilter(k)}>
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
                return (
                  <tr key={r.id} data-testid="run-row" data-kind={r.kind} data-status={r.status}>
                    <td className="mono">{formatUtc(Date.parse(r.startedAt))}</td>
                    <td><span className={`op op-${r.kind === 'proof' ? 'maintenance' : r.kind === 'bisect' ? 'merge' : 'create'}`}>{r.kind}</span></td>
                    <td><span className={`pill pill-${statusClass(r.status)}`}>{r.status}</span></td>
                    <td className="ellipsis-wide" title={r.title}>{r.title}</td>
                    <td className="num mono muted">{took !== null && Number.isFinite(took) ? `${(took / 1000).toFixed(1)} s` : '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
