// The open table's loading gate: while a table opens (or after it failed to), every screen that
// needs it shows this instead: the table's header, the log read's progress with Cancel, or the
// error with Retry. The History tab shows the same header above its list. The first page of the
// history (the listing and the newest commits, historyHead) is painted as soon as it arrives, with
// the rest of the log's read counted beside it; what only the whole log can say is "loading".
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { useWorkbench } from '../state/context';
import { formatAgo, formatInt, formatUtc } from '../ui/format';
import { VersionsTable } from '../ui/VersionsTable';

/** The open table's name, path and the facts its open answered. */
export function TableHeader() {
  const table = useWorkbench((s) => s.table);
  if (!table) return null;
  const s = table.summary;
  const head = table.head;
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
          <div><dt>Version</dt><dd className="mono">{s.latestVersion}</dd></div>
          <div><dt>Commits</dt><dd className="mono">{s.commitCount}</dd></div>
          <div><dt>Last commit</dt><dd title={formatUtc(s.lastCommitAt) + ' UTC'}>{formatAgo(s.lastCommitAt)}</dd></div>
          <div><dt>Partitions</dt><dd className="mono">{s.partitionColumns.length ? s.partitionColumns.join(', ') : 'none'}</dd></div>
          <div><dt>Protocol</dt><dd className="mono">{s.minReaderVersion ?? '?'} / {s.minWriterVersion ?? '?'}</dd></div>
        </dl>
      )}
      {!s && head && (
        // From the listing and the newest commits: the version and the count of commit files are
        // known; the protocol and partitions come from the whole log.
        <dl className="facts" data-testid="table-facts" data-from="head">
          <div><dt>Version</dt><dd className="mono">{head.latestVersion}</dd></div>
          <div><dt>Commits</dt><dd className="mono">{head.commitCount}</dd></div>
          <div><dt>Last commit</dt><dd title={head.versions.length ? formatUtc(head.versions[0].timestamp) + ' UTC' : undefined}>{head.versions.length ? formatAgo(head.versions[0].timestamp) : 'none listed'}</dd></div>
          <div><dt>Partitions</dt><dd className="muted" data-testid="fact-loading">loading</dd></div>
          <div><dt>Protocol</dt><dd className="muted">loading</dd></div>
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
      {table.status === 'loading' && <FirstPage />}
      {table.status === 'error' && table.error && (
        <div className="pad">
          <ErrorPanel error={table.error} onRetry={() => void openTable(table.path)} onDismiss={close} />
        </div>
      )}
    </div>
  );
}

/**
 * The newest versions while the rest of the log is read: "the newest 50 of 10,000" (both counts
 * from the listing), the same columns as the History list. Nothing when no first page has come;
 * the screens show it until their own list is drawn.
 */
export function FirstPage() {
  const table = useWorkbench((s) => s.table);
  const head = table?.head;
  if (!table || !head) return null;
  const shown = head.versions.length;
  return (
    <section className="first-page" data-testid="first-page">
      <div className="section-bar">
        <h2>History</h2>
        <span className="count" data-testid="first-page-count">
          {shown === head.commitCount ? `${formatInt(shown)} versions` : `the newest ${formatInt(shown)} of ${formatInt(head.commitCount)} versions`}
        </span>
        <span className="section-note">
          {shown === head.commitCount ? 'from the JSON commits in _delta_log, newest first; the table is still being read' : 'from the newest JSON commits in _delta_log; the rest are listed once the log is read'}
        </span>
      </div>
      <VersionsTable versions={head.versions} />
    </section>
  );
}
