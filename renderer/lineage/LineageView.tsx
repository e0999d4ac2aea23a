// The Lineage tab: the dbt project attached to the open table (a setting per table), its model
// graph, and for a chosen column of the model that writes the table, its verified input columns
// followed across models, each edge with its verdict. The numbers are the CLI's (one result object).
import { useEffect, useMemo, useState } from 'react';
import { ROWS, sqlFromLabel, type EdgeResult, type InfluenceResult, type LineageResult, type ModelResult } from '../../shared/lineage';
import { useWorkbench } from '../state/context';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { PathInput } from '../ui/PathInput';
import { useLineage } from '../state/lineage';
import './lineage.css';

const pct = (n: number, d: number) => (d === 0 ? 'n/a' : `${Math.round((n / d) * 100)}%`);

function AttachForm({ table, initial }: { table: string; initial: string }) {
  const attach = useLineage((s) => s.attach);
  const [project, setProject] = useState(initial);
  const [model, setModel] = useState('');
  return (
    <form className="lin-attach" data-testid="lineage-attach" onSubmit={(e) => { e.preventDefault(); void attach(table, project.trim() || null, model.trim() || null); }}>
      <PathInput value={project} onChange={setProject} placeholder="/path/to/dbt_project (or warehouse.duckdb)" label="dbt project folder or DuckDB file" testId="lineage-project-path" />
      <input className="path-input lin-model-input" data-testid="lineage-model-input" type="text" spellCheck={false} placeholder="model (optional)" aria-label="Model that writes the table (optional)" value={model} onChange={(e) => setModel(e.target.value)} />
      <button type="submit" className="btn btn-small btn-primary" data-testid="lineage-attach-submit" disabled={!project.trim()}>Attach</button>
    </form>
  );
}

function Totals({ r }: { r: LineageResult }) {
  const t = r.totals;
  return (
    <div className="lin-totals" data-testid="lineage-totals">
      <div><b>{t.models}</b> models <span className="muted">({t.verified} verified, {t.skipped} skipped)</span></div>
      <div><b>{t.claimed}</b> claimed column edges</div>
      <div className="ok-text"><b>{t.confirmed}</b> confirmed ({pct(t.confirmed, t.claimed)})</div>
      <div className={t.notExercised ? 'warn-text' : ''}><b>{t.notExercised}</b> not exercised</div>
      <div><b>{t.viaJoinsAndFilters}</b> via joins and filters</div>
      <div className={t.unexplained ? 'bad-text' : ''} data-testid="lineage-unexplained"><b>{t.unexplained}</b> unexplained</div>
      <div className="muted small">seed {r.seed} · at most {r.rows} rows per input</div>
    </div>
  );
}

interface GNode { id: string; model: ModelResult | null; depth: number; row: number }

function graphOf(models: ModelResult[]): { nodes: GNode[]; links: [string, string][] } {
  const byName = new Map(models.map((m) => [m.name, m]));
  const depth = new Map<string, number>();
  const depthOf = (n: string, seen = new Set<string>()): number => {
    const hit = depth.get(n);
    if (hit !== undefined) return hit;
    const m = byName.get(n);
    if (!m || seen.has(n)) { depth.set(n, 0); return 0; }
    seen.add(n);
    const d = m.dependsOn.length ? 1 + Math.max(...m.dependsOn.map((x) => depthOf(x, seen))) : 0;
    depth.set(n, d);
    return d;
  };
  const ids = [...new Set([...models.flatMap((m) => m.dependsOn), ...models.map((m) => m.name)])];
  for (const id of ids) depthOf(id);
  const rows = new Map<number, number>();
  const nodes = ids.sort((a, b) => (depth.get(a)! - depth.get(b)!) || (a < b ? -1 : 1)).map((id) => {
    const d = depth.get(id)!;
    const row = rows.get(d) ?? 0;
    rows.set(d, row + 1);
    return { id, model: byName.get(id) ?? null, depth: d, row };
  });
  return { nodes, links: models.flatMap((m) => m.dependsOn.map((d): [string, string] => [d, m.name])) };
}

const NW = 150, NH = 30, GX = 44, GY = 12;

function ModelGraph({ r, selected, tableModel, onPick }: { r: LineageResult; selected: string | null; tableModel: string | null; onPick(m: string): void }) {
  const g = useMemo(() => graphOf(r.models), [r]);
  const pos = new Map(g.nodes.map((n) => [n.id, { x: 8 + n.depth * (NW + GX), y: 8 + n.row * (NH + GY) }]));
  const width = 16 + (Math.max(0, ...g.nodes.map((n) => n.depth)) + 1) * (NW + GX) - GX;
  const height = 16 + Math.max(1, ...g.nodes.map((n) => n.row + 1)) * (NH + GY) - GY;
  return (
    <div className="lin-graph-wrap">
      <svg className="lin-graph" data-testid="lineage-graph" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label="Model graph">
        {g.links.map(([a, b]) => {
          const p = pos.get(a)!, q = pos.get(b)!;
          const x1 = p.x + NW, y1 = p.y + NH / 2, x2 = q.x, y2 = q.y + NH / 2;
          return <path key={`${a}>${b}`} className="lin-link" d={`M${x1},${y1} C${x1 + GX / 2},${y1} ${x2 - GX / 2},${y2} ${x2},${y2}`} />;
        })}
        {g.nodes.map((n) => {
          const p = pos.get(n.id)!;
          const m = n.model;
          const cls = !m ? 'input' : m.status === 'skipped' ? 'skipped' : m.counts.unexplained ? 'bad' : m.counts.notExercised ? 'warn' : 'ok';
          const label = n.id.length > 20 ? `${n.id.slice(0, 19)}…` : n.id;
          return (
            <g key={n.id} className={`lin-node ${cls}${n.id === selected ? ' selected' : ''}${n.id === tableModel ? ' table-model' : ''}`} data-testid={`lineage-node-${n.id}`}
              transform={`translate(${p.x},${p.y})`} onClick={() => m && onPick(n.id)} role={m ? 'button' : undefined} tabIndex={m ? 0 : undefined}
              onKeyDown={(e) => { if (m && (e.key === 'Enter' || e.key === ' ')) onPick(n.id); }}>
              <title>{m ? `${n.id}: ${m.status === 'skipped' ? `skipped: ${m.skipReason}` : `${m.counts.confirmed} of ${m.counts.claimed} edges confirmed, ${m.counts.unexplained} unexplained`}` : `${n.id} (input)`}</title>
              <rect width={NW} height={NH} rx={5} />
              <text x={10} y={NH / 2 + 4}>{label}</text>
              {m && m.status === 'verified' && <text className="lin-node-count" x={NW - 8} y={NH / 2 + 4} textAnchor="end">{m.counts.confirmed}/{m.counts.claimed}</text>}
            </g>
          );
        })}
      </svg>
    </div>
  );
}

function Verdict({ v }: { v: EdgeResult['verdict'] | InfluenceResult['verdict'] }) {
  const words = { confirmed: ['confirmed', 'ok'], not_exercised: ['not exercised', 'warn'], via_joins_and_filters: ['via joins and filters', 'info'], unexplained: ['unexplained', 'bad'] } as const;
  const [w, c] = words[v];
  return <span className={`pill pill-${c}`} data-verdict={v}>{w}</span>;
}

/** A column's verified input columns, followed upstream through the models that compute them. */
function EdgeTree({ r, model, column, depth, seen }: { r: LineageResult; model: string; column: string; depth: number; seen: Set<string> }) {
  const m = r.models.find((x) => x.name === model);
  if (!m || m.status === 'skipped') return null;
  const edges = m.edges.filter((e) => e.output === column);
  return (
    <>
      {edges.map((e) => {
        const key = `${model}.${column}<-${e.input}.${e.column}`;
        const up = r.models.find((x) => x.name === e.input);
        const upColumn = e.column.split('.')[0];
        const next = new Set(seen).add(key);
        return (
          <div key={key} className="lin-edge" data-testid="lineage-edge" style={{ paddingLeft: depth * 18 }}>
            <div className="lin-edge-row">
              <span className="mono">{depth > 0 ? '↳ ' : ''}{e.input}.{e.column}</span>
              <Verdict v={e.verdict} />
              <span className="muted small">{e.verdict === 'confirmed' ? `by ${e.by.join(', ')}` : e.reason}</span>
            </div>
            {up && !seen.has(key) && depth < 8 && <EdgeTree r={r} model={up.name} column={upColumn} depth={depth + 1} seen={next} />}
          </div>
        );
      })}
      {depth === 0 && edges.length === 0 && <div className="muted" data-testid="lineage-no-edges">No input column is claimed for this column (a constant, or count(*)).</div>}
    </>
  );
}

function ColumnPanel({ r, model }: { r: LineageResult; model: ModelResult }) {
  const column = useLineage((s) => s.column);
  const pickColumn = useLineage((s) => s.pickColumn);
  const cols = model.claims?.columns.map((c) => c.name) ?? [];
  const chosen = column && cols.includes(column) ? column : cols[0] ?? null;
  const infl = model.influences.filter((x) => x.output === chosen);
  const rows = model.influences.filter((x) => x.output === ROWS);
  return (
    <section className="lin-columns" data-testid="lineage-columns">
      <div className="lin-section-head">
        <h2>{model.name}</h2>
        <span className="muted small">{sqlFromLabel(model.sqlFrom)}{model.path ? ` · ${model.path}` : ''} · {model.outputRows ?? '?'} output rows · {model.runs} runs{model.rowKey ? ` · rows matched by ${model.rowKey}` : ''}</span>
      </div>
      {model.status === 'skipped' ? <div className="banner warn" data-testid="lineage-skipped">Skipped: {model.skipReason}</div> : (
        <div className="lin-split">
          <ul className="lin-col-list" aria-label="Output columns">
            {cols.map((c) => {
              const es = model.edges.filter((e) => e.output === c);
              const bad = model.influences.some((x) => x.output === c && x.verdict === 'unexplained');
              return (
                <li key={c}>
                  <button type="button" className={`lin-col${c === chosen ? ' active' : ''}`} data-testid={`lineage-col-${c}`} onClick={() => pickColumn(c)}>
                    <span className="mono">{c}</span>
                    <span className={`small ${bad ? 'bad-text' : es.some((e) => e.verdict !== 'confirmed') ? 'warn-text' : 'muted'}`}>{es.filter((e) => e.verdict === 'confirmed').length}/{es.length}{bad ? ' !' : ''}</span>
                  </button>
                </li>
              );
            })}
          </ul>
          <div className="lin-detail" data-testid="lineage-column-detail">
            {chosen && (
              <>
                <h3>Verified input columns of <span className="mono">{chosen}</span></h3>
                <EdgeTree r={r} model={model.name} column={chosen} depth={0} seen={new Set()} />
                {infl.length > 0 && (
                  <>
                    <h3>Observed, not claimed</h3>
                    {infl.map((x) => (
                      <div key={`${x.input}.${x.column}`} className="lin-edge-row" data-testid="lineage-influence">
                        <span className="mono">{x.input}.{x.column}</span><Verdict v={x.verdict} /><span className="muted small">by {x.by.join(', ')}</span>
                      </div>
                    ))}
                  </>
                )}
              </>
            )}
            {rows.length > 0 && (
              <>
                <h3>Row count changed by</h3>
                {rows.map((x) => (
                  <div key={`${x.input}.${x.column}`} className="lin-edge-row"><span className="mono">{x.input}.{x.column}</span><Verdict v={x.verdict} /><span className="muted small">by {x.by.join(', ')}</span></div>
                ))}
              </>
            )}
            {(model.claims?.notes.length ?? 0) > 0 && <div className="muted small lin-notes">{model.claims!.notes.map((n) => <div key={n}>Note: {n}</div>)}</div>}
          </div>
        </div>
      )}
    </section>
  );
}

function ModelTable({ r, onPick }: { r: LineageResult; onPick(m: string): void }) {
  return (
    <table className="lin-table lin-models" data-testid="lineage-models">
      <thead><tr><th>model</th><th>claimed</th><th>confirmed</th><th>not exercised</th><th>via joins and filters</th><th>unexplained</th></tr></thead>
      <tbody>
        {r.models.map((m) => (
          <tr key={m.name} data-testid={`lineage-model-${m.name}`} onClick={() => onPick(m.name)} className="clickable">
            <td className="mono">{m.name}</td>
            {m.status === 'skipped' ? <td colSpan={5} className="muted">skipped: {m.skipReason}</td> : (
              <>
                <td className="num">{m.counts.claimed}</td>
                <td className="num">{m.counts.confirmed}</td>
                <td className="num">{m.counts.notExercised}</td>
                <td className="num">{m.counts.viaJoinsAndFilters}</td>
                <td className={`num${m.counts.unexplained ? ' bad-text' : ''}`}>{m.counts.unexplained}</td>
              </>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function LineageView() {
  const table = useWorkbench((s) => s.table);
  const tablePath = table?.summary?.path ?? table?.path ?? null;
  const load = useLineage((s) => s.load);
  const attachment = useLineage((s) => s.attachment);
  const attachmentError = useLineage((s) => s.attachmentError);
  const attach = useLineage((s) => s.attach);
  const status = useLineage((s) => s.status);
  const progress = useLineage((s) => s.progress);
  const run = useLineage((s) => s.run);
  const error = useLineage((s) => s.error);
  const verify = useLineage((s) => s.verify);
  const cancel = useLineage((s) => s.cancel);
  const picked = useLineage((s) => s.model);
  const pickModel = useLineage((s) => s.pickModel);
  const [changing, setChanging] = useState(false);

  useEffect(() => { if (tablePath) void load(tablePath); }, [tablePath, load]);
  if (!tablePath) return null;
  const r = run?.result ?? null;
  const tableModel = attachment?.tableModel ?? null;
  const shown = r?.models.find((m) => m.name === (picked ?? tableModel)) ?? null;

  return (
    <div className="reconcile-view lineage-view" data-testid="lineage-view">
      <header className="rc-header">
        <h1>Lineage</h1>
        <span className="muted">table</span>
        <code className="rc-target" title={tablePath}>{table?.summary?.name ?? tablePath}</code>
        {attachment?.project && !changing && (
          <>
            <span className="muted">dbt project</span>
            <code className="rc-target" data-testid="lineage-project" title={attachment.project}>{attachment.project.split(/[\\/]/).slice(-2).join('/')}</code>
            <span className="muted">model</span>
            {attachment.models.length > 0 ? (
              <select className="lin-select" data-testid="lineage-model-select" aria-label="Model that writes the table" value={attachment.tableModel ?? ''}
                onChange={(e) => void attach(tablePath, attachment.project, e.target.value || null)}>
                {!attachment.tableModel && <option value="">(none found)</option>}
                {attachment.models.map((m) => <option key={m} value={m}>{m}</option>)}
              </select>
            ) : <code className="rc-target">—</code>}
            {attachment.foundBy && <span className="muted small" data-testid="lineage-found-by">{attachment.foundBy === 'setting' ? 'set for this table' : attachment.foundBy === 'location' ? 'by its configured location' : 'by the table\'s name'}</span>}
            <button type="button" className="btn btn-quiet btn-small" onClick={() => setChanging(true)}>Change</button>
            <button type="button" className="btn btn-quiet btn-small" data-testid="lineage-detach" onClick={() => void attach(tablePath, null, null)}>Detach</button>
          </>
        )}
        <span className="spacer" />
        {attachment?.project && (
          <button type="button" className="btn btn-primary btn-small" data-testid="lineage-verify" disabled={status === 'running'} onClick={() => void verify()}>Verify lineage</button>
        )}
      </header>
      <div className="lin-body">
        {attachmentError && <ErrorPanel error={attachmentError} />}
        {attachment === null && !attachmentError && <div className="skeleton" data-testid="lineage-loading-attachment" />}
        {attachment && (!attachment.project || changing) && (
          <section className="lin-empty" data-testid="lineage-empty">
            <h2>Attach the dbt project that builds this table</h2>
            <p className="muted">lakerec reads its models (compiled SQL in <code>target/</code>, or their Jinja rendered by lakerec), finds the model that writes this table by the name you give, its configured location or the table&apos;s name, and verifies each claimed column edge by perturbing a copy of the inputs. Nothing is written to the project or the table.</p>
            <AttachForm table={tablePath} initial={attachment.project ?? ''} />
            {changing && <button type="button" className="btn btn-quiet btn-small" onClick={() => setChanging(false)}>Keep the current project</button>}
          </section>
        )}
        {attachment?.project && !changing && attachment.problem && <div className="banner warn" data-testid="lineage-problem">{attachment.problem}</div>}
        {attachment?.project && !changing && status === 'idle' && !r && (
          <div className="muted" data-testid="lineage-idle">Each input column is shifted, set to NULL and shuffled (seed 1729) on up to 1,000 rows of each input, and each model rerun read-only. Press Verify lineage.</div>
        )}
        {status === 'running' && <JobProgress progress={progress} waiting="Reading the project…" onCancel={cancel} testId="lineage-progress" />}
        {status === 'error' && error && <ErrorPanel error={error} onRetry={() => void verify()} />}
        {r && !changing && (
          <>
            <Totals r={r} />
            <div className="lin-top">
              <ModelGraph r={r} selected={shown?.name ?? null} tableModel={tableModel} onPick={pickModel} />
              <ModelTable r={r} onPick={pickModel} />
            </div>
            {shown ? <ColumnPanel r={r} model={shown} /> : <div className="muted">Pick a model in the graph to see its columns.</div>}
          </>
        )}
      </div>
    </div>
  );
}
