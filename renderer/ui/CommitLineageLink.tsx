// The commit panel's line naming the dbt model that writes the open table (the Lineage tab's
// attachment), shared so the timeline shows it without importing the Lineage tab.
import { useEffect } from 'react';
import { useNav } from '../app/nav';
import { useWorkbench } from '../state/context';
import { useLineage } from '../state/lineage';

/** The commit panel's line: the model that writes the table, and the way to its lineage. */
export function CommitLineageLink() {
  const t = useWorkbench((s) => s.table);
  const table = t?.summary?.path ?? t?.path ?? '';
  const setScreen = useNav((s) => s.setScreen);
  const load = useLineage((s) => s.load);
  const attachment = useLineage((s) => s.attachment);
  const loadedFor = useLineage((s) => s.table);
  useEffect(() => { if (table && loadedFor !== table) void load(table); }, [table, loadedFor, load]);
  if (!table || !attachment?.project || loadedFor !== table) return null;
  return (
    <div className="lin-commit-link" data-testid="commit-lineage">
      {attachment.tableModel
        ? <>Written by the dbt model <code>{attachment.tableModel}</code>.</>
        : <>A dbt project is attached, but no model of it writes this table.</>}
      {' '}
      <button type="button" className="btn btn-quiet btn-small" data-testid="commit-lineage-open" onClick={() => setScreen('lineage')}>Its lineage</button>
    </div>
  );
}
