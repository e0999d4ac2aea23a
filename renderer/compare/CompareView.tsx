// The Compare tab: two versions of the open table through the reconcile engine at rows level (the
// older one as the source), keyed by the contract beside the table or by keys typed here; the
// commits between the two with their operations, then findings and example rows as in Reconcile.
import { useEffect } from 'react';
import { useNav } from '../app/nav';
import { formatUtc, operationKind } from '../ui/format';
import { ReconcileResultView } from '../ui/ResultView';
import { TableGate } from '../app/TableGate';
import { useClient, useWorkbench } from '../state/context';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { CopyButton } from '../ui/CopyButton';
import { formatInt } from '../ui/format';
import { compareStoreFor, useCompare } from './store';
import './compare.css';

let handledRequest = 0;

function Commits() {
  const r = useCompare((s) => s.result);
  const openVersion = useNav((s) => s.openVersion);
  if (!r) return null;
  return (
    <div className="cmp-commits" data-testid="compare-commits">
      <div className="section-bar"><h2>Commits between</h2><span className="count">{r.commits.length}</span>
        <span className="section-note">after v{Math.min(r.from, r.to)} up to v{Math.max(r.from, r.to)}</span></div>
      <ol className="cmp-list">
        {r.commits.map((c) => (
          <li key={c.version} data-testid="compare-commit" data-version={c.version}>
            <button type="button" className="cmp-v mono" onClick={() => openVersion(c.version)} aria-label={`Open version ${c.version} in the timeline`}>v{c.version}</button>
            <span className={`op op-${operationKind(c.operation)}`}>{c.operation ?? '(no commitInfo)'}</span>
            <span className="mono small">
              <span className="add">+{formatInt(c.addedRows)}</span> <span className="remove">−{formatInt(c.removedRows)}</span> rows · +{c.addedFiles} −{c.removedFiles} files
            </span>
            <span className="muted small">{formatUtc(c.timestamp)}</span>
            {Object.entries(c.operationParameters).filter(([, v]) => v !== '' && v !== 'null' && v !== '[]').slice(0, 3).map(([k, v]) => (
              <code key={k} className="cmp-param" title={v}>{k}={v.length > 48 ? `${v.slice(0, 45)}…` : v}</code>
            ))}
          </li>
        ))}
      </ol>
    </div>
  );
}

export function CompareView() {
  const tableStatus = useWorkbench((st) => st.table?.status ?? null);
  const client = useClient();
  const path = useWorkbench((s) => s.table?.summary?.path ?? null);
  const latest = useWorkbench((s) => s.table?.summary?.latestVersion ?? null);
  const request = useNav((s) => s.compareRequest);
  const store = compareStoreFor(client);
  const s = useCompare((x) => x);

  useEffect(() => {
    if (!path) return;
    if (request && request.seq !== handledRequest) {
      handledRequest = request.seq;
      void store.getState().enter(path, request.from, request.to);
    } else if (store.getState().path !== path) {
      void store.getState().enter(path, latest !== null && latest > 0 ? latest - 1 : null, latest);
    }
  }, [path, latest, request, store]);

  const keysError = s.formError?.field === 'keys' ? s.formError.message : null;
  const versionsError = s.formError?.field === 'versions' ? s.formError.message : null;
  // Opening, or failed to open (a stopped server included): the table view says so.
  if (tableStatus !== 'ready') return <TableGate />;
  return (
    <div className="compare-view pad" data-testid="compare-view">
      <form className="cmp-form" onSubmit={(e) => { e.preventDefault(); void s.run(); }} noValidate>
        <div className="cmp-field">
          <label htmlFor="cmp-from">From version <span className="muted">(the source)</span></label>
          <input id="cmp-from" className="path-input mono" inputMode="numeric" value={s.from} onChange={(e) => s.set('from', e.target.value)} data-testid="compare-from"
            aria-invalid={versionsError ? true : undefined} aria-describedby={versionsError ? 'cmp-versions-error' : undefined} />
        </div>
        <div className="cmp-field">
          <label htmlFor="cmp-to">To version <span className="muted">(the target)</span></label>
          <input id="cmp-to" className="path-input mono" inputMode="numeric" value={s.to} onChange={(e) => s.set('to', e.target.value)} data-testid="compare-to"
            aria-invalid={versionsError ? true : undefined} />
        </div>
        <div className="cmp-field cmp-keys">
          <label htmlFor="cmp-keys">Key columns</label>
          <input id="cmp-keys" className="path-input mono" value={s.keys} placeholder="order_id" onChange={(e) => s.set('keys', e.target.value)} data-testid="compare-keys"
            aria-invalid={keysError ? true : undefined} aria-describedby={keysError ? 'cmp-keys-error' : 'cmp-keys-note'} />
          <span id="cmp-keys-note" className="muted small">{s.contractKeys ? `From contract.yaml beside the table: ${s.contractKeys.join(', ')}` : 'No contract.yaml with keys beside this table: name them.'}</span>
        </div>
        <button type="submit" className="btn btn-primary" disabled={s.status === 'running'} data-testid="compare-run">Compare</button>
      </form>
      {versionsError && <p className="field-error" id="cmp-versions-error" role="alert" data-testid="compare-versions-error">{versionsError}</p>}
      {keysError && <p className="field-error" id="cmp-keys-error" role="alert" data-testid="compare-keys-error">{keysError}</p>}
      {s.status === 'running' && <JobProgress progress={s.progress} waiting="Comparing the two versions…" onCancel={() => s.cancel()} testId="compare-progress" />}
      {s.status === 'error' && s.error && <ErrorPanel error={s.error} />}
      {s.status === 'done' && s.result && (
        <div data-testid="compare-result">
          <p className="cmp-head">
            Version <b className="mono">{s.result.from}</b><CopyButton text={String(s.result.from)} label="Copy the from version" /> (source) → version <b className="mono">{s.result.to}</b><CopyButton text={String(s.result.to)} label="Copy the to version" /> (target),
            keys <code>{s.result.keys.join(', ')}</code><CopyButton text={s.result.keys.join(',')} label="Copy the keys" /> <span className="muted">({s.result.keysFrom === 'contract' ? 'from the contract' : 'as given'})</span>
          </p>
          <Commits />
          <ReconcileResultView result={s.result.result} exportable={false} />
        </div>
      )}
    </div>
  );
}
