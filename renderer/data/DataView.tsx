// The Data tab: the rows of a version (or only the rows a commit added) in a virtualised grid,
// read page by page from the engine; sort by a column header, column = value filters, a SQL
// WHERE box checked by the engine (its refusal under the box, the grid unchanged), a column
// picker, the row count; confidential columns arrive masked.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useNav } from '../app/nav';
import { TableGate } from '../app/TableGate';
import { useClient, useWorkbench } from '../state/context';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { CopyButton } from '../ui/CopyButton';
import { DataGrid } from './DataGrid';
import { dataStoreFor, PAGE_ROWS, useData } from './store';
import './data.css';

/** The last rows request from another screen handled (coming back to the tab does not re-apply it). */
let handledRequest = 0;

const fmt = (n: number) => n.toLocaleString('en-US');

/** The filter the shown rows answer, in words: the WHERE as it ran and the column = value filters. */
function shownFilter(where: string | null, equals: { column: string; value: string | null }[]): string {
  const parts = [...equals.map((x) => `${x.column} = ${x.value === null ? 'null' : `“${x.value}”`}`), ...(where ? [`WHERE ${where}`] : [])];
  return parts.length ? parts.join(' and ') : 'none: every row';
}

function FilterBar() {
  const columns = useData((s) => s.columns);
  // Filters build on what was last asked for, so two quick changes both count.
  const query = useData((s) => s.pending ?? s.query);
  const filterError = useData((s) => s.filterError);
  const where = useData((s) => s.where);
  const apply = useData((s) => s.apply);
  const [col, setCol] = useState('');
  const [val, setVal] = useState('');
  // The box follows the filter the grid shows; a refused one stays in the box to be fixed.
  const shownWhere = useData((s) => s.query.where);
  const [draft, setDraft] = useState(shownWhere);
  useEffect(() => setDraft(shownWhere), [shownWhere]);
  const filterable = columns.filter((c) => !c.masked);
  const pick = col || filterable[0]?.name || '';
  const whereError = filterError && filterError.detail?.field !== 'equals' ? filterError : null;
  const equalsError = filterError && filterError.detail?.field === 'equals' ? filterError : null;
  return (
    <div className="data-filters">
      <form className="eq-form" onSubmit={(e) => {
        e.preventDefault();
        if (!pick) return;
        void apply({ equals: [...query.equals.filter((x) => x.column !== pick), { column: pick, value: val === '' ? null : val }] });
        setVal('');
      }}>
        <label htmlFor="eq-col">Filter</label>
        <select id="eq-col" value={pick} onChange={(e) => setCol(e.target.value)} data-testid="eq-column">
          {filterable.map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
        </select>
        <span aria-hidden="true">=</span>
        <input aria-label="Value" className="path-input eq-value" value={val} placeholder="value (empty: null)" onChange={(e) => setVal(e.target.value)} data-testid="eq-value" />
        <button type="submit" className="btn btn-small" data-testid="eq-add">Add</button>
        {query.equals.map((x) => (
          <span key={x.column} className="pill pill-info eq-chip" data-testid="eq-chip">
            {x.column} = {x.value === null ? 'null' : `“${x.value}”`}
            <button type="button" className="item-remove" aria-label={`Remove the filter on ${x.column}`}
              onClick={() => void apply({ equals: query.equals.filter((y) => y.column !== x.column) })}>×</button>
          </span>
        ))}
      </form>
      {equalsError && <p className="field-error" role="alert">{equalsError.message}</p>}
      <form className="where-form" onSubmit={(e) => { e.preventDefault(); void apply({ where: draft }); }}>
        <label htmlFor="where-box">WHERE</label>
        <textarea id="where-box" className="where-box mono" rows={1} spellCheck={false} value={draft}
          placeholder="amount > 100 AND lower(customer) LIKE 'c%'" data-testid="where-box"
          aria-invalid={whereError ? true : undefined} aria-describedby={whereError ? 'where-error' : undefined}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); void apply({ where: draft }); } }} />
        <button type="submit" className="btn btn-small" data-testid="where-apply">Apply</button>
        {query.where && <button type="button" className="btn btn-small btn-quiet" onClick={() => { setDraft(''); void apply({ where: '' }); }}>Clear</button>}
      </form>
      {whereError && <p className="field-error" id="where-error" role="alert" data-testid="where-error">{whereError.message}</p>}
      {!whereError && where && <p className="muted small" data-testid="where-ran">Ran as <code>{where}</code> (checked: one expression over this version&apos;s columns, read-only).</p>}
    </div>
  );
}

function ColumnPicker() {
  const columns = useData((s) => s.columns);
  const hidden = useData((s) => s.hidden);
  const toggle = useData((s) => s.toggleColumn);
  return (
    <details className="col-picker">
      <summary className="btn btn-small" data-testid="column-picker">Columns ({columns.length - hidden.length} of {columns.length})</summary>
      <div className="col-picker-list" role="group" aria-label="Columns shown">
        {columns.map((c) => (
          <label key={c.name}>
            <input type="checkbox" checked={!hidden.includes(c.name)} onChange={() => toggle(c.name)} data-testid={`col-toggle-${c.name}`} />
            {c.name} <span className="muted">{c.type}</span>
          </label>
        ))}
      </div>
    </details>
  );
}

function VersionPicker({ latest }: { latest: number | null }) {
  const version = useData((s) => s.version);
  const addedIn = useData((s) => s.query.addedIn);
  const path = useData((s) => s.path);
  const open = useData((s) => s.open);
  const [v, setV] = useState('');
  useEffect(() => setV(version === null ? '' : String(version)), [version]);
  return (
    <form className="version-form" onSubmit={(e) => {
      e.preventDefault();
      if (!path) return;
      const n = v.trim() === '' ? null : Number(v);
      if (n !== null && (!Number.isInteger(n) || n < 0)) return;
      void open(path, n);
    }}>
      <label htmlFor="data-version">Version</label>
      <input id="data-version" className="path-input version-input mono" inputMode="numeric" value={v} onChange={(e) => setV(e.target.value)} data-testid="data-version" />
      <button type="submit" className="btn btn-small">Show</button>
      {latest !== null && version !== latest && <button type="button" className="btn btn-small btn-quiet" onClick={() => path && void open(path, null)}>Latest (v{latest})</button>}
      {addedIn !== null && (
        <span className="pill pill-info" data-testid="added-only">
          only the rows version {addedIn} added
          <button type="button" className="item-remove" aria-label="Show every row of this version" onClick={() => path && void open(path, addedIn)}>×</button>
        </span>
      )}
    </form>
  );
}

export function DataView() {
  const tableStatus = useWorkbench((st) => st.table?.status ?? null);
  const client = useClient();
  const table = useWorkbench((s) => s.table);
  const tablePath = table?.summary?.path ?? table?.path ?? null;
  const latest = table?.summary?.latestVersion ?? null;
  const rowsRequest = useNav((s) => s.rowsRequest);
  const s = useData((x) => x);
  const store = dataStoreFor(client);

  useEffect(() => {
    if (!tablePath) return;
    if (rowsRequest && rowsRequest.seq !== handledRequest) {
      handledRequest = rowsRequest.seq;
      void store.getState().open(tablePath, rowsRequest.version, rowsRequest.addedIn);
    } else if (store.getState().path !== tablePath) {
      void store.getState().open(tablePath, null);
    }
  }, [tablePath, rowsRequest, store]);

  const indexes = useMemo(() => s.columns.map((c, i) => (s.hidden.includes(c.name) ? -1 : i)).filter((i) => i >= 0), [s.columns, s.hidden]);
  const rowAt = useCallback((i: number) => s.pages[Math.floor(i / PAGE_ROWS)]?.[i % PAGE_ROWS] ?? null, [s.pages]);
  const need = useCallback((first: number, last: number) => {
    const st = store.getState();
    st.need(first);
    st.need(last);
  }, [store]);
  const onSort = useCallback((column: string) => {
    const st = store.getState();
    const cur = (st.pending ?? st.query).sort;
    const next = cur?.column !== column ? { column, direction: 'asc' as const } : cur.direction === 'asc' ? { column, direction: 'desc' as const } : null;
    void store.getState().apply({ sort: next });
  }, [store]);

  // A refused filter or sort leaves the earlier rows on screen: they are marked as the earlier query's.
  const stale = s.filterError !== null && s.status === 'ready';

  // Opening, or failed to open (a stopped server included): the table view says so.
  if (tableStatus !== 'ready') return <TableGate />;
  return (
    <div className="data-view pad" data-testid="data-view">
      <div className="section-bar data-bar">
        <VersionPicker latest={latest} />
        <span className="spacer" />
        {s.columns.length > 0 && <ColumnPicker />}
      </div>
      {s.columns.length > 0 && <FilterBar />}
      {s.status === 'loading' && <JobProgress progress={s.progress} waiting="Reading the snapshot…" onCancel={() => s.cancel()} testId="data-progress" />}
      {s.status === 'error' && s.error && (
        <div data-testid="data-error">
          <p className="data-error-title">Version {s.version ?? s.query.version ?? 'latest'} cannot be read.</p>
          <ErrorPanel error={s.error} />
        </div>
      )}
      {s.columns.length > 0 && s.status !== 'error' && (
        <>
          <p className="data-count" data-testid="row-count" aria-live="polite">
            {s.matchingRows === s.totalRows
              ? <><strong>{fmt(s.totalRows)}</strong> {s.totalRows === 1 ? 'row' : 'rows'}</>
              : <><strong>{fmt(s.matchingRows)}</strong> of {fmt(s.totalRows)} rows match</>}
            {' '}at version <span className="mono">{s.version}</span>
            {s.version !== null && <CopyButton text={String(s.version)} label="Copy the version" />}
            {' '}· {fmt(s.files)} {s.files === 1 ? 'file' : 'files'} · {s.deletionVectorFiles > 0
              ? `deletion vectors applied (${fmt(s.deletionVectorFiles)} of ${fmt(s.files)} files)`
              : 'no deletion vectors'}
            {s.columns.some((c) => c.masked) && <> · confidential columns masked</>}
            {s.elapsedMs !== null && <span className="muted"> · first page in {s.elapsedMs} ms</span>}
          </p>
          {stale && (
            <p className="stale-result" id="stale-result" data-testid="stale-result" role="status">
              Still shown: the rows of the previous filter ({shownFilter(s.where, s.query.equals)}), not of the refused one.
            </p>
          )}
          {s.matchingRows === 0
            ? <p className="muted" data-testid="grid-empty">{s.totalRows === 0 ? 'This version holds no rows.' : 'No row matches the filters.'}</p>
            : <DataGrid columns={s.columns} rowCount={s.matchingRows} rowAt={rowAt} need={need} sort={s.query.sort} onSort={onSort} indexes={indexes} stale={stale} />}
        </>
      )}
    </div>
  );
}
