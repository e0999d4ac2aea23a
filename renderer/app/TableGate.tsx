// The open table's loading gate: while a table opens (or after it failed to), every screen that
// needs it shows this instead: the table's header, the log read's progress with Cancel, or the
// error with Retry. The History tab shows the same header above its list.
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { useWorkbench } from '../state/context';
import { formatAgo, formatUtc } from '../ui/format';

/** The open table's name, path and the facts its open answered. */
export function TableHeader() {
  const table = useWorkbench((s) => s.table);
  if (!table) return null;
  const s = table.summary;
  return (
    <header className="table-header">
      <div className="table-title">
        <span className="table-icon" aria-hidden="true">▦</span>
        <div>
          <h1 data-testid="table-name">{s?.name ?? table.path.split(/[\\/]/).filter(Boolean).pop() ?? table.path}</h1>
          <div className="table-path mono" title={table.path}>{table.path}</div>
        </div>
      </div>
      {s && (
        <dl className="facts" data-testid="table-facts">
          <div><dt>Version</dt><dd className="mono">{s.version}</dd></div>
          <div><dt>Commits</dt><dd className="mono">{s.commitCount}</dd></div>
          <div><dt>Last commit</dt><dd title={formatUtc(s.lastCommitAt) + ' UTC'}>{formatAgo(s.lastCommitAt)}</dd></div>
          <div><dt>Partitions</dt><dd className="mono">{s.partitionColumns.length ? s.partitionColumns.join(', ') : 'none'}</dd></div>
          <div><dt>Protocol</dt><dd className="mono">{s.minReaderVersion ?? '?'} / {s.minWriterVersion ?? '?'}</dd></div>
        </dl>
      )}
    </header>
  );
}

/** The gate itself: the header, then the open's progress (Cancel) or its error (Retry, Close). */
export function TableGate() {
  const table = useWorkbench((s) => s.table);
  const openTable = useWorkbench((s) => s.openTable);
  const cancel = useWorkbench((s) => s.cancelOpen);
  const close = useWorkbench((s) => s.closeTable);
  if (!table) return null;
  return (
    <div className="table-view">
      <TableHeader />
      {table.status === 'loading' && (
        <JobProgress progress={table.progress} waiting="Reading the log…" onCancel={cancel} testId="loading" cancelTestId="cancel-button" />
      )}
      {table.status === 'error' && table.error && (
        <div className="pad">
          <ErrorPanel error={table.error} onRetry={() => void openTable(table.path)} onDismiss={close} />
        </div>
      )}
    </div>
  );
}
