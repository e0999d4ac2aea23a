// The History tab: the open table's header, then the list of versions from the log. While the
// table opens (or when it failed to), the app's loading gate stands in (renderer/app/TableGate).
// The list is the timeline's versions (one per-version model), picked: it is not a second download
// of the same 10,000 versions; this tab asks for the timeline when it is shown first.
import { useEffect, useMemo } from 'react';
import { versionRows } from '../../shared/api';
import { FirstPage, TableGate, TableHeader } from '../app/TableGate';
import { useClient, useWorkbench } from '../state/context';
import { timelineStoreFor, useTimeline } from '../state/timeline';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { VersionsTable } from '../ui/VersionsTable';

export function HistoryView() {
  const client = useClient();
  const table = useWorkbench((s) => s.table);
  const status = useTimeline((s) => s.status);
  const path = useTimeline((s) => s.path);
  const forensics = useTimeline((s) => s.forensics);
  const error = useTimeline((s) => s.error);
  const progress = useTimeline((s) => s.progress);
  const load = useTimeline((s) => s.load);
  const cancel = useTimeline((s) => s.cancel);
  const tablePath = table && table.status === 'ready' ? table.summary?.path ?? null : null;
  useEffect(() => {
    if (tablePath && tablePath !== timelineStoreFor(client).getState().path) void load(tablePath);
  }, [client, tablePath, load]);
  const rows = useMemo(() => (forensics ? versionRows(forensics.versions) : null), [forensics]);

  if (!table) return null;
  if (!tablePath) return <TableGate />;
  const mine = path === tablePath;
  return (
    <div className="table-view">
      <TableHeader />
      {(!mine || status === 'loading' || status === 'idle') && (
        <>
          <JobProgress progress={progress} waiting="Reading the log…" onCancel={cancel} testId="history-loading" cancelTestId="history-cancel" />
          <FirstPage />
        </>
      )}
      {mine && status === 'error' && error && (
        <div className="pad"><ErrorPanel error={error} onRetry={() => void load(tablePath)} /></div>
      )}
      {mine && status === 'ready' && rows && (
        <>
          <div className="section-bar">
            <h2>History</h2>
            <span className="count" data-testid="version-count">{rows.length} versions</span>
            <span className="section-note">from the JSON commits in _delta_log, newest first</span>
          </div>
          <VersionsTable versions={rows} />
        </>
      )}
    </div>
  );
}
