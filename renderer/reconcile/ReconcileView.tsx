// The Reconcile screen: the open table is the target; the source of truth is dropped on the
// screen, uploaded, picked or typed; the contract is edited with its problems shown on their
// line; one of the five levels; a run with progress and Cancel; then the verdict, findings,
// partitions and example rows, and the incident report.
import { useEffect, useRef, useState, type ChangeEvent, type DragEvent, type FormEvent } from 'react';
import { LEVELS, type Level } from '../../shared/reconcile';
import { WAREHOUSE_SIDES, type WarehouseSideChoice } from '../../shared/api';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { PathInput } from '../ui/PathInput';
import { useClient, useWorkbench } from '../state/context';
import { useNav } from '../app/nav';
import { sourceFromDrop } from './drop';
import { ReconcileResultView } from '../ui/ResultView';
import { reconcileStoreFor, useReconcile } from '../state/reconcile';

const LEVEL_QUESTIONS: Record<Level, string> = {
  schema: 'same columns and types?',
  counts: 'right rows per partition? (log stats)',
  checksum: 'right rows per partition? (reads all)',
  keys: 'which keys missing, extra, duplicated?',
  rows: 'which columns differ, on which rows?',
};

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1048576) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1048576).toFixed(1)} MB`;
}

function SourcePanel() {
  const client = useClient();
  const info = useWorkbench((s) => s.info);
  const source = useReconcile((s) => s.source);
  const busy = useReconcile((s) => s.sourceBusy);
  const error = useReconcile((s) => s.sourceError);
  const setSourcePath = useReconcile((s) => s.setSourcePath);
  const uploadSource = useReconcile((s) => s.uploadSource);
  const pickSource = useReconcile((s) => s.pickSource);
  const clearSource = useReconcile((s) => s.clearSource);
  const [path, setPath] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);
  // Capabilities, not the transport (ADR 0006): a dropped file is read in place or uploaded.
  const inPlace = info?.canResolveDroppedFiles === true;
  const dialog = info?.canPickSource === true;
  void client;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSourcePath(path, 'path');
  };
  const onFile = (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.target.files?.[0];
    if (f) void uploadSource(f);
    e.target.value = '';
  };

  return (
    <section className="rc-card" data-testid="source-panel">
      <h3 className="rc-card-title"><span className="step-no">1</span> Source of truth</h3>
      {source ? (
        <div className="source-chip" data-testid="source-chosen" title={source.path}>
          <span className="item-icon" aria-hidden="true">▤</span>
          <span className="source-name">{source.label}</span>
          <span className="source-via">{source.via === 'upload' ? 'uploaded to the local engine' : source.via === 'drop' ? 'dropped' : source.via === 'dialog' ? 'chosen' : 'by path'}</span>
          <button type="button" className="item-remove" aria-label="Clear the source" onClick={clearSource}>×</button>
        </div>
      ) : busy ? (
        <div className="source-drop busy" data-testid="source-uploading">
          <span className="spinner" aria-hidden="true" /> Sending {busy.name} ({formatBytes(busy.size)}) to the local engine…
        </div>
      ) : (
        <div className="source-drop" data-testid="source-drop">
          <div className="drop-glyph small" aria-hidden="true">⇩</div>
          <div>Drop a Parquet, CSV or JSON lines file on this screen{inPlace ? ', or a Delta folder' : ''}</div>
          <div className="muted">{inPlace ? 'it is read where it is; nothing is copied' : 'it is sent to the engine on 127.0.0.1 and kept in a temp folder until it stops'}</div>
        </div>
      )}
      <form className="source-form" onSubmit={submit}>
        <PathInput testId="source-path" placeholder="/path/to/source.parquet or a Delta folder" label="Source path" value={path} onChange={setPath} />
        <button type="submit" className="btn" data-testid="source-use-path">Use path</button>
        {dialog ? (
          <button type="button" className="btn" data-testid="source-pick" onClick={() => void pickSource()}>Choose file…</button>
        ) : (
          <>
            <button type="button" className="btn" data-testid="source-upload" onClick={() => fileInput.current?.click()}>Upload a file…</button>
            <input ref={fileInput} type="file" hidden accept=".parquet,.csv,.tsv,.json,.jsonl,.ndjson" data-testid="source-file-input" onChange={onFile} />
          </>
        )}
      </form>
      {error && <p className="field-error" role="alert" data-testid="source-error">{error.message}</p>}
    </section>
  );
}

function ContractEditor({ table }: { table: string }) {
  const text = useReconcile((s) => s.contractText);
  const origin = useReconcile((s) => s.contractOrigin);
  const path = useReconcile((s) => s.contractPath);
  const loading = useReconcile((s) => s.contractLoading);
  const loadError = useReconcile((s) => s.contractLoadError);
  const check = useReconcile((s) => s.check);
  const setText = useReconcile((s) => s.setContractText);
  const load = useReconcile((s) => s.loadContract);
  const accepted = useReconcile((s) => s.contractAccepted);
  const accept = useReconcile((s) => s.acceptContract);
  const acceptError = useReconcile((s) => s.acceptError);
  const gutter = useRef<HTMLDivElement>(null);
  const lines = Math.max(1, text.split('\n').length);
  const badLines = new Set((check?.problems ?? []).map((p) => p.line).filter((l): l is number => l !== null));

  return (
    <section className="rc-card contract-card" data-testid="contract-panel">
      <h3 className="rc-card-title">
        <span className="step-no">2</span> Contract
        <span className="rc-card-note">
          {loading ? 'loading…' : origin === 'file' ? <>from <code title={path ?? ''}>{path?.split(/[\\/]/).slice(-2).join('/')}</code></> : origin === 'template' ? 'a template from the table’s schema: review the keys' : origin === 'edited' ? 'edited here (the file is not changed)' : ''}
        </span>
        <span className="spacer" />
        <button type="button" className="btn btn-quiet btn-small" onClick={() => void load(table, true)}>Reload</button>
      </h3>
      {origin === 'file' && !accepted && !loading && !loadError ? (
        // A contract that came with the table was written by whoever wrote the table.
        <div className="contract-trust" role="alert" data-testid="contract-trust">
          <span>
            This contract came with the table (<code title={path ?? ''}>{path?.split(/[\\/]/).slice(-2).join('/')}</code>): whoever wrote the
            table wrote it. Review it; it is not run until you accept it.
          </span>
          <button type="button" className="btn btn-small" data-testid="contract-accept" onClick={() => void accept()}>Accept</button>
          {acceptError ? <span className="error-text">{acceptError.message}</span> : null}
        </div>
      ) : null}
      {loadError ? (
        <ErrorPanel error={loadError} onRetry={() => void load(table, true)} />
      ) : (
        <div className={`yaml-editor${check && !check.ok ? ' invalid' : ''}`}>
          <div className="yaml-gutter" ref={gutter} aria-hidden="true">
            {Array.from({ length: lines }, (_, i) => (
              <div key={i} className={badLines.has(i + 1) ? 'bad' : undefined}>{i + 1}</div>
            ))}
          </div>
          <textarea
            className="yaml-text"
            data-testid="contract-editor"
            spellCheck={false}
            aria-label="Contract YAML"
            value={text}
            disabled={loading}
            onChange={(e) => setText(e.target.value)}
            onScroll={(e) => { if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop; }}
          />
        </div>
      )}
      <div className="contract-status" data-testid="contract-status">
        {check === null ? (
          <span className="muted">{loading ? 'Reading the contract…' : ''}</span>
        ) : check.ok ? (
          <span className="ok-text" data-testid="contract-ok">✓ Valid: keys {check.summary?.keys.join(', ')}{check.summary?.partitionColumn ? `; partition ${check.summary.partitionColumn}` : ''}</span>
        ) : (
          <ul className="problems" data-testid="contract-problems">
            {check.problems.map((p, i) => (
              <li key={i} data-line={p.line ?? ''}><span className="line-no">{p.line !== null ? `line ${p.line}` : 'contract'}</span> {p.message}</li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

function RunPanel({ table, latest }: { table: string; latest: number | null }) {
  const level = useReconcile((s) => s.level);
  const version = useReconcile((s) => s.version);
  const setVersion = useReconcile((s) => s.setVersion);
  const useBaseline = useReconcile((s) => s.useBaseline);
  const setUseBaseline = useReconcile((s) => s.setUseBaseline);
  const setLevel = useReconcile((s) => s.setLevel);
  const status = useReconcile((s) => s.status);
  const source = useReconcile((s) => s.source);
  const check = useReconcile((s) => s.check);
  const run = useReconcile((s) => s.run);
  const unaccepted = useReconcile((s) => s.contractOrigin === 'file' && !s.contractAccepted);
  const pushed = useReconcile((s) => s.warehouse.connection !== null);
  const running = status === 'running';
  const blockedBy = !source ? 'Choose a source first' : check && !check.ok ? 'Fix the contract first' : unaccepted ? 'Accept the table’s contract first' : null;
  return (
    <section className="rc-card" data-testid="level-panel">
      <h3 className="rc-card-title"><span className="step-no">3</span> Level</h3>
      <div className="levels" role="radiogroup" aria-label="Level">
        {LEVELS.map((l) => (
          <button
            key={l}
            type="button"
            role="radio"
            aria-checked={l === level}
            className={`level${l === level ? ' active' : ''}`}
            data-testid={`level-${l}`}
            onClick={() => setLevel(l)}
          >
            <span className="level-name">{l}</span>
            <span className="level-q">{LEVEL_QUESTIONS[l]}</span>
          </button>
        ))}
      </div>
      <label className="version-pick">
        <span>Target version</span>
        <input
          type="number"
          min={0}
          max={latest ?? undefined}
          className="path-input version-input"
          data-testid="target-version"
          placeholder={latest !== null ? `latest (v${latest})` : 'latest'}
          value={version ?? ''}
          onChange={(e) => setVersion(e.target.value === '' ? null : Math.max(0, Math.floor(Number(e.target.value))))}
        />
      </label>
      <label className="baseline-pick" title="Kept in the app-data folder, never beside the table. Needs level checksum or deeper.">
        <input type="checkbox" data-testid="use-baseline" checked={useBaseline && !pushed} disabled={level === 'schema' || level === 'counts' || pushed} onChange={(e) => setUseBaseline(e.target.checked)} />
        <span>Baseline: reuse the checksums of unchanged partitions</span>
      </label>
      <WherePanel />
      <div className="run-row">
        <button type="button" className="btn btn-primary" data-testid="run-reconcile" disabled={running || blockedBy !== null} title={blockedBy ?? ''} onClick={() => void run(table)}>
          Reconcile
        </button>
        {blockedBy && <span className="muted">{blockedBy}</span>}
      </div>
    </section>
  );
}

const SIDE_WORDS: Record<WarehouseSideChoice, string> = { target: 'the target', source: 'the source', both: 'both sides' };

/** Where the run goes: this machine, or a side (or both) pushed to a warehouse connection (names and kinds only reach the window). */
function WherePanel() {
  const connections = useReconcile((s) => s.connections);
  const problems = useReconcile((s) => s.connectionProblems);
  const error = useReconcile((s) => s.connectionsError);
  const w = useReconcile((s) => s.warehouse);
  const setWarehouse = useReconcile((s) => s.setWarehouse);
  const load = useReconcile((s) => s.loadConnections);
  useEffect(() => { if (connections === null) void load(); }, [connections, load]);
  const chosen = connections?.find((c) => c.name === w.connection) ?? null;
  const relationHint = chosen?.kind === 'duckdb' ? 'default: its local path (DuckDB reads its files)' : 'catalog.schema.table, as that engine knows it';
  return (
    <div className="where-pick" data-testid="where-panel">
      <label className="version-pick">
        <span>Run on</span>
        <select
          className="path-input"
          data-testid="warehouse-connection"
          value={w.connection ?? ''}
          disabled={connections === null}
          onChange={(e) => setWarehouse({ connection: e.target.value === '' ? null : e.target.value })}
        >
          <option value="">this machine (local engine)</option>
          {(connections ?? []).map((c) => (
            <option key={c.name} value={c.name} disabled={c.needsTrust}>{c.name} ({c.kind}){c.needsTrust ? ' — needs lakerec warehouse trust' : ''}</option>
          ))}
        </select>
      </label>
      {connections === null ? <span className="muted" data-testid="warehouse-loading">Looking for warehouse connections…</span> : null}
      {connections !== null && connections.length === 0 && !error ? <span className="muted" data-testid="warehouse-none">No warehouse connection found (a <code>connections:</code> section in the lakerec settings file, ~/.databrickscfg, connections.toml or dbt profiles.yml).</span> : null}
      {error ? <span className="error-text" data-testid="warehouse-error">{error.message}</span> : null}
      {problems.length > 0 ? <span className="error-text" data-testid="warehouse-problems">{problems.join(' ')}</span> : null}
      {chosen && (
        <>
          <span className="muted">Computed on {chosen.name} ({chosen.kind}):</span>
          <div className="levels where-sides" role="radiogroup" aria-label={`Side computed on ${chosen.name}`}>
            {WAREHOUSE_SIDES.map((side) => (
              <button key={side} type="button" role="radio" aria-checked={w.side === side} className={`level${w.side === side ? ' active' : ''}`} data-testid={`warehouse-side-${side}`} onClick={() => setWarehouse({ side })}>
                <span className="level-name">{SIDE_WORDS[side]}</span>
              </button>
            ))}
          </div>
          {w.side !== 'target' && (
            <PathInput testId="warehouse-source-relation" label="Source relation" placeholder={`source: ${relationHint}`} value={w.sourceRelation} onChange={(v) => setWarehouse({ sourceRelation: v })} />
          )}
          {w.side !== 'source' && (
            <PathInput testId="warehouse-target-relation" label="Target relation" placeholder={`target: ${relationHint}`} value={w.targetRelation} onChange={(v) => setWarehouse({ targetRelation: v })} />
          )}
          <span className="muted">Only partials come back (per-partition counts and digests), then the keys of the partitions that disagree.</span>
        </>
      )}
    </div>
  );
}

function Progressing() {
  const progress = useReconcile((s) => s.progress);
  const cancel = useReconcile((s) => s.cancel);
  return <JobProgress progress={progress} waiting="Starting…" onCancel={cancel} testId="reconcile-progress" cancelTestId="cancel-reconcile" className="rc-progress" />;
}

let handledRequest = 0;

export function ReconcileView() {
  const client = useClient();
  const store = reconcileStoreFor(client);
  const table = useWorkbench((s) => s.table);
  const status = useReconcile((s) => s.status);
  const error = useReconcile((s) => s.error);
  const result = useReconcile((s) => s.result);
  const loadContract = useReconcile((s) => s.loadContract);
  const [dragging, setDragging] = useState(false);
  const depth = useRef(0);
  const tablePath = table?.summary?.path ?? table?.path ?? null;

  useEffect(() => {
    if (tablePath) void loadContract(tablePath);
  }, [tablePath, loadContract]);

  // "Reconcile against this version" from the timeline: the target version set here.
  const request = useNav((s) => s.reconcileRequest);
  useEffect(() => {
    if (request && request.seq !== handledRequest) {
      handledRequest = request.seq;
      store.getState().setVersion(request.version);
    }
  }, [request, store]);

  if (!table || !tablePath) return null;

  // The whole screen takes a source drop (and keeps it from the window's open-a-table drop).
  const onDragEnter = (e: DragEvent) => { e.preventDefault(); e.stopPropagation(); depth.current++; setDragging(true); };
  const onDragLeave = (e: DragEvent) => { e.preventDefault(); e.stopPropagation(); depth.current = Math.max(0, depth.current - 1); if (depth.current === 0) setDragging(false); };
  const onDragOver = (e: DragEvent) => { e.preventDefault(); e.stopPropagation(); e.dataTransfer.dropEffect = 'copy'; };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    e.stopPropagation();
    depth.current = 0;
    setDragging(false);
    const r = sourceFromDrop(e.dataTransfer, client);
    const st = store.getState();
    if (!r) st.setSourcePath('', 'drop');
    else if ('path' in r) st.setSourcePath(r.path, 'drop');
    else if ('file' in r) void st.uploadSource(r.file);
    else store.setState({ sourceError: r.error });
  };

  return (
    <div className="reconcile-view" data-testid="reconcile-view" onDragEnter={onDragEnter} onDragLeave={onDragLeave} onDragOver={onDragOver} onDrop={onDrop}>
      <header className="rc-header">
        <h1>Reconcile</h1>
        <span className="muted">target</span>
        <code className="rc-target" title={tablePath}>{table.summary?.name ?? tablePath}</code>
        {table.summary && <span className="count">v{table.summary.latestVersion}</span>}
      </header>
      <div className="rc-setup">
        <SourcePanel />
        <ContractEditor table={tablePath} />
        <RunPanel table={tablePath} latest={table.summary?.latestVersion ?? null} />
      </div>
      {status === 'running' && <Progressing />}
      {status === 'error' && error && (
        <div className="pad"><ErrorPanel error={error} onRetry={() => void store.getState().run(tablePath)} /></div>
      )}
      {status === 'done' && result && <ReconcileResultView result={result} />}
      {status === 'idle' && (
        <div className="rc-empty" data-testid="reconcile-empty">
          Choose the source, check the contract, pick a level, then <b>Reconcile</b>. The verdict, the findings, each partition and example rows appear here.
        </div>
      )}
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <div className="drop-overlay-box">Drop the source file to reconcile against it</div>
        </div>
      )}
    </div>
  );
}
