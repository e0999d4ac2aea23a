// The History tab: the open table's header, then the list of versions from the log. While the
// table opens (or when it failed to), the app's loading gate stands in (renderer/app/TableGate).
import { TableGate, TableHeader } from '../app/TableGate';
import { useWorkbench } from '../state/context';
import { VersionsTable } from '../ui/VersionsTable';

export function HistoryView() {
  const table = useWorkbench((s) => s.table);
  if (!table) return null;
  if (table.status !== 'ready' || !table.versions) return <TableGate />;
  return (
    <div className="table-view">
      <TableHeader />
      <div className="section-bar">
        <h2>History</h2>
        <span className="count" data-testid="version-count">{table.versions.length} versions</span>
        <span className="section-note">from the JSON commits in _delta_log, newest first</span>
      </div>
      <VersionsTable versions={table.versions} />
    </div>
  );
}
