// The Schema tab: the columns of a version (types, nullability, descriptions, tags, column-mapping
// ids and physical names, the field metadata as written) and, beside it, every version that changed
// the schema with what was added, dropped, retyped or renamed.
import { useEffect, useState } from 'react';
import type { SchemaChange } from '../../shared/views';
import { formatUtc } from '../ui/format';
import { TableGate } from '../app/TableGate';
import { useClient, useWorkbench } from '../state/context';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { CopyButton } from '../ui/CopyButton';
import { schemaStoreFor, useSchema } from './store';
import './schema.css';

const KIND_LABEL: Record<SchemaChange['kind'], string> = {
  added: 'added', dropped: 'dropped', retyped: 'retyped', renamed: 'renamed', nullability: 'nullability', metadata: 'metadata',
};

function Change({ c }: { c: SchemaChange }) {
  let text: string;
  if (c.kind === 'added') text = `${c.column} ${c.to ?? ''}`;
  else if (c.kind === 'dropped') text = `${c.column} ${c.from ?? ''}`;
  else if (c.kind === 'renamed') text = `${c.from ?? '?'} → ${c.to ?? '?'}`;
  else if (c.kind === 'metadata') text = `${c.column}: field metadata changed`;
  else text = `${c.column}: ${c.from ?? '?'} → ${c.to ?? '?'}`;
  return (
    <li className={`sc sc-${c.kind}`} data-testid="schema-change" data-kind={c.kind}>
      <span className="sc-kind">{KIND_LABEL[c.kind]}</span> <span className="mono">{text}</span>
    </li>
  );
}

function Columns() {
  const at = useSchema((s) => s.at);
  const atError = useSchema((s) => s.atError);
  const loading = useSchema((s) => s.atLoading);
  if (atError) return <ErrorPanel error={atError} />;
  if (!at) return loading ? <p className="muted">Reading the schema…</p> : null;
  const mapped = at.columnMapping !== 'none';
  return (
    <div className="schema-cols" data-testid="schema-columns" data-version={at.version}>
      <h2 className="schema-h">Columns at version {at.version} <CopyButton text={String(at.version)} label="Copy the version" />
        <span className="muted small"> · {at.fields.length} {at.fields.length === 1 ? 'column' : 'columns'}{mapped ? ` · column mapping: ${at.columnMapping}` : ''}</span></h2>
      <div className="table-scroll">
        <table className="schema-table">
          <thead>
            <tr>
              <th scope="col">Column</th><th scope="col">Type</th><th scope="col">Null</th><th scope="col">Description · tags</th>
              {mapped && <><th scope="col">Mapping id</th><th scope="col">Physical name</th></>}
              <th scope="col">Field metadata</th>
            </tr>
          </thead>
          <tbody>
            {at.fields.map((f) => (
              <tr key={f.name} data-testid="schema-field">
                <th scope="row" className="mono">{f.name}{f.partition && <span className="pill pill-info sc-pill">partition</span>}</th>
                <td className="mono">{f.type}</td>
                <td>{f.nullable ? 'nullable' : 'not null'}</td>
                <td>
                  {f.description && <span>{f.description}</span>}
                  {f.sensitivity && <span className={`pill ${f.sensitivity === 'confidential' || f.sensitivity === 'restricted' ? 'pill-warn' : 'pill-info'} sc-pill`}>{f.sensitivity}</span>}
                  {f.tags.map((t) => <span key={t} className="pill sc-pill">{t}</span>)}
                  {!f.description && !f.sensitivity && f.tags.length === 0 && <span className="muted">—</span>}
                </td>
                {mapped && <><td className="mono">{f.columnMappingId ?? '—'}</td><td className="mono">{f.physicalName ?? '—'}</td></>}
                <td className="mono small meta-cell">{Object.keys(f.metadata).length ? JSON.stringify(f.metadata) : <span className="muted">{'{}'}</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function History() {
  const history = useSchema((s) => s.history);
  const error = useSchema((s) => s.historyError);
  const progress = useSchema((s) => s.progress);
  const at = useSchema((s) => s.at);
  const show = useSchema((s) => s.show);
  if (error) return <ErrorPanel error={error} />;
  if (!history) return <JobProgress progress={progress} waiting="Reading the schema history…" testId="schema-progress" />;
  return (
    <div className="schema-history" data-testid="schema-history">
      <h2 className="schema-h">Schema history <span className="muted small">· {history.versions.length} {history.versions.length === 1 ? 'version' : 'versions'} changed it
        {history.identity === 'column_mapping' ? ' · renames followed by column-mapping id' : ' · no column mapping: a rename reads as drop + add'}</span></h2>
      <ol className="sh-list">
        {[...history.versions].reverse().map((v) => (
          <li key={v.version} className={`sh-item${at?.version === v.version ? ' sh-current' : ''}`} data-testid="schema-version" data-version={v.version}>
            <button type="button" className="sh-head" onClick={() => void show(v.version)} aria-label={`Show the columns at version ${v.version}`}>
              <span className="mono sh-v">v{v.version}</span>
              <span className="sh-op">{v.operation ?? '(no commitInfo)'}</span>
              <span className="muted small">{formatUtc(v.timestamp)} · {v.fieldCount} {v.fieldCount === 1 ? 'column' : 'columns'}</span>
            </button>
            <ul className="sc-list">{v.changes.map((c, i) => <Change key={i} c={c} />)}</ul>
          </li>
        ))}
      </ol>
    </div>
  );
}

export function SchemaView() {
  const tableStatus = useWorkbench((st) => st.table?.status ?? null);
  const client = useClient();
  const path = useWorkbench((s) => s.table?.summary?.path ?? null);
  const latest = useWorkbench((s) => s.table?.summary?.latestVersion ?? null);
  const store = schemaStoreFor(client);
  const at = useSchema((s) => s.at);
  const [v, setV] = useState('');
  useEffect(() => {
    if (path && store.getState().path !== path) void store.getState().load(path);
  }, [path, store]);
  useEffect(() => setV(at ? String(at.version) : ''), [at]);
  // Opening, or failed to open (a stopped server included): the table view says so.
  if (tableStatus !== 'ready') return <TableGate />;
  return (
    <div className="schema-view pad" data-testid="schema-view">
      <form className="version-form" onSubmit={(e) => {
        e.preventDefault();
        const n = Number(v);
        if (v.trim() !== '' && Number.isInteger(n) && n >= 0) void store.getState().show(n);
      }}>
        <label htmlFor="schema-version">Version</label>
        <input id="schema-version" className="path-input version-input mono" inputMode="numeric" value={v} onChange={(e) => setV(e.target.value)} data-testid="schema-version-input" />
        <button type="submit" className="btn btn-small">Show</button>
        {latest !== null && at && at.version !== latest && <button type="button" className="btn btn-small btn-quiet" onClick={() => void store.getState().show(null)}>Latest (v{latest})</button>}
      </form>
      <div className="schema-layout">
        <Columns />
        <History />
      </div>
    </div>
  );
}
