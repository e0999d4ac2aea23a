// The open table: its header, then the list of versions from the log (or loading / error).
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { useWorkbench } from '../state/context';
import { formatAgo, formatUtc } from './format';
import { VersionsTable } from './VersionsTable';

export function HistoryView() {
  const table = useWorkbench((s) => s.table);
  const openTable = useWorkbench((s) => s.openTable);
  const cancel = useWorkbench((s) => s.cancelOpen);
  const close = useWorkbench((s) => s.closeTable);
  if (!table) return null;
  const s = table.summary;

  return (
    <div className="table-view">
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
            <div><dt>Version</dt><dd className="mono">{s.latestVersion}</dd></div>
            <div><dt>Commits</dt><dd className="mono">{s.commitCount}</dd></div>
            <div><dt>Last commit</dt><dd title={formatUtc(s.lastCommitAt) + ' UTC'}>{formatAgo(s.lastCommitAt)}</dd></div>
            <div><dt>Partitions</dt><dd className="mono">{s.partitionColumns.length ? s.partitionColumns.join(', ') : 'none'}</dd></div>
            <div><dt>Protocol</dt><dd className="mono">{s.minReaderVersion ?? '?'} / {s.minWriterVersion ?? '?'}</dd></div>
          </dl>
        )}
      </header>

      {table.status === 'loading' && (
        <JobProgress progress={table.progress} waiting="Reading the log…" onCancel={cancel} testId="loading" cancelTestId="cancel-button" />
      )}

      {table.status === 'error' && table.error && (
        <div className="pad">
          <ErrorPanel error={table.error} onRetry={() => void openTable(table.path)} onDismiss={close} />
        </div>
      )}

      {table.status === 'ready' && table.versions && (
        <>
          <div className="section-bar">
            <h2>History</h2>
            <span className="count" data-testid="version-count">{table.versions.length} versions</span>
            <span className="section-note">from the JSON commits in _delta_log, newest first</span>
          </div>
          <VersionsTable versions={table.versions} />
        </>
      )}
    </div>
  );
}
