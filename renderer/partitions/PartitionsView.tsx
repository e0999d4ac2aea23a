// The Partitions tab: per partition rows, files and bytes at every version (a chart of the
// largest partitions, and the table at the selected version), small files under a threshold the
// user sets, and the whole table's sizes over time. All from the log: no data file is read.
import { useEffect, useMemo, useState } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { partitionsAt, type PartitionHealth } from '../../shared/views';
import { HistoryView } from '../history/HistoryView';
import { useClient, useWorkbench } from '../state/context';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { CopyButton } from '../ui/CopyButton';
import { compact, formatBytes, formatInt } from '../timeline/timeline';
import { partitionsStoreFor, usePartitions } from './store';
import './partitions.css';

const COLORS = ['#0969da', '#8250df', '#bf3989', '#cf222e', '#bc4c00', '#4d2d00', '#1a7f37', '#116329', '#0550ae', '#6e7781'];
const MB = 1024 * 1024;

type Metric = 'rows' | 'files' | 'bytes';

function seriesFor(h: PartitionHealth, metric: Metric, top: string[]) {
  const state = new Map<string, number>();
  return h.versions.map((v) => {
    for (const p of v.partitions) state.set(p.partition, metric === 'rows' ? p.rows ?? 0 : metric === 'files' ? p.files : p.bytes);
    const row: Record<string, number> = { version: v.version };
    for (const t of top) row[t] = state.get(t) ?? 0;
    return row;
  });
}

function PartitionChart({ h, metric, log, onPick, selected }: { h: PartitionHealth; metric: Metric; log: boolean; onPick(v: number): void; selected: number | null }) {
  const latest = h.versions.length ? partitionsAt(h, h.versions[h.versions.length - 1].version) : [];
  const top = useMemo(() => {
    const peak = new Map<string, number>();
    for (const v of h.versions) for (const p of v.partitions) peak.set(p.partition, Math.max(peak.get(p.partition) ?? 0, metric === 'rows' ? p.rows ?? 0 : metric === 'files' ? p.files : p.bytes));
    return [...peak.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k]) => k);
  }, [h, metric]);
  const data = useMemo(() => seriesFor(h, metric, top), [h, metric, top]);
  const fmt = metric === 'bytes' ? formatBytes : compact;
  return (
    <div className="pt-chart" data-testid="partition-health-chart" data-partitions={h.partitions.length}>
      <p className="muted small">{metric} per partition at every version: the {top.length} largest of {h.partitions.length} partitions seen{latest.length !== h.partitions.length ? ` (${latest.length} hold files at the latest version)` : ''}. Click a point to open that version.</p>
      <ResponsiveContainer width="100%" height={260}>
        <LineChart data={data} margin={{ top: 18, right: 18, bottom: 4, left: 6 }} onClick={(e) => { const v = Number((e as { activeLabel?: unknown } | null)?.activeLabel); if (Number.isFinite(v)) onPick(v); }}>
          <CartesianGrid stroke="#eef0f3" />
          <XAxis dataKey="version" tick={{ fontSize: 11, fill: '#57606a' }} />
          <YAxis scale={log ? 'log' : 'auto'} domain={log ? [1, (max: number) => Math.max(10, max * 2)] : [0, 'auto']} allowDataOverflow={log} tickFormatter={(n: number) => fmt(n)} tick={{ fontSize: 11, fill: '#57606a' }} width={60} />
          <Tooltip isAnimationActive={false} formatter={(v) => fmt(Number(v))} labelFormatter={(l) => `version ${String(l)}`} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {selected !== null && <ReferenceLine x={selected} stroke="#1f2328" strokeDasharray="3 3" label={{ value: `v${selected}`, position: 'top', fontSize: 11, fill: '#1f2328' }} />}
          {top.map((t, i) => <Line key={t} type="stepAfter" dataKey={(d: Record<string, number>) => (log ? Math.max(d[t], 1) : d[t])} name={t || '(whole table)'} stroke={COLORS[i % COLORS.length]} dot={false} isAnimationActive={false} strokeWidth={1.6} />)}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

function SizesChart({ h, log }: { h: PartitionHealth; log: boolean }) {
  const data = h.versions.map((v) => ({ version: v.version, mb: v.bytes / MB, files: v.files, small: v.smallFiles }));
  return (
    <div className="pt-chart" data-testid="sizes-chart">
      <ResponsiveContainer width="100%" height={200}>
        <LineChart data={data} margin={{ top: 6, right: 18, bottom: 4, left: 6 }}>
          <CartesianGrid stroke="#eef0f3" />
          <XAxis dataKey="version" tick={{ fontSize: 11, fill: '#57606a' }} />
          <YAxis yAxisId="mb" scale={log ? 'log' : 'auto'} domain={log ? [0.001, (max: number) => Math.max(0.01, max * 2)] : [0, 'auto']} allowDataOverflow={log} tick={{ fontSize: 11, fill: '#57606a' }} width={60} tickFormatter={(n: number) => `${compact(n)} MB`} />
          <YAxis yAxisId="files" orientation="right" tick={{ fontSize: 11, fill: '#57606a' }} width={44} />
          <Tooltip isAnimationActive={false} labelFormatter={(l) => `version ${String(l)}`} formatter={(v, name) => (name === 'size' ? `${Number(v).toFixed(2)} MB` : formatInt(Number(v)))} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          <Line yAxisId="mb" dataKey="mb" name="size" stroke="#0969da" dot={false} isAnimationActive={false} type="stepAfter" />
          <Line yAxisId="files" dataKey="files" name="files" stroke="#8250df" dot={false} isAnimationActive={false} type="stepAfter" />
          <Line yAxisId="files" dataKey="small" name="small files" stroke="#bc4c00" dot={false} isAnimationActive={false} type="stepAfter" strokeDasharray="4 3" />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

function AtVersion({ h, version }: { h: PartitionHealth; version: number }) {
  const rows = partitionsAt(h, version);
  const v = h.versions.find((x) => x.version === version);
  return (
    <div data-testid="partitions-at" data-version={version}>
      <h2 className="pt-h">Partitions at version {version} <CopyButton text={String(version)} label="Copy the version" />
        {v && <span className="muted small"> · {v.operation ?? '(no commitInfo)'} · {formatInt(v.files)} {v.files === 1 ? 'file' : 'files'}, {formatBytes(v.bytes)}, {v.rows === null ? 'rows unknown' : `${formatInt(v.rows)} rows`} · <strong data-testid="small-files-total">{formatInt(v.smallFiles)}</strong> small</span>}
      </h2>
      {rows.length === 0 ? <p className="muted" data-testid="partitions-empty">No partition holds files at this version.</p> : (
        <div className="table-scroll">
          <table className="pt-table">
            <thead><tr><th scope="col">Partition</th><th scope="col" className="num">Rows</th><th scope="col" className="num">Files</th><th scope="col" className="num">Small files</th><th scope="col" className="num">Bytes</th><th scope="col" className="num">Avg file</th></tr></thead>
            <tbody>
              {rows.map((p) => (
                <tr key={p.partition} data-testid="partition-row" data-partition={p.partition}>
                  <th scope="row" className="mono">{p.partition || '(whole table)'}</th>
                  <td className="num mono">{p.rows === null ? '?' : formatInt(p.rows)}</td>
                  <td className="num mono">{formatInt(p.files)}</td>
                  <td className={`num mono${p.smallFiles > 0 ? ' pt-small' : ''}`}>{formatInt(p.smallFiles)}</td>
                  <td className="num mono">{formatBytes(p.bytes)}</td>
                  <td className="num mono">{p.files ? formatBytes(Math.round(p.bytes / p.files)) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export function PartitionsView() {
  const tableStatus = useWorkbench((st) => st.table?.status ?? null);
  const client = useClient();
  const path = useWorkbench((s) => s.table?.summary?.path ?? null);
  const store = partitionsStoreFor(client);
  const s = usePartitions((x) => x);
  const [metric, setMetric] = useState<Metric>('rows');
  const [log, setLog] = useState(false);
  const [threshold, setThreshold] = useState(String(s.smallFileBytes / MB));
  useEffect(() => {
    if (path && store.getState().path !== path) void store.getState().load(path);
  }, [path, store]);
  const h = s.health;
  // Opening, or failed to open (a stopped server included): the table view says so.
  if (tableStatus !== 'ready') return <HistoryView />;
  return (
    <div className="partitions-view pad" data-testid="partitions-view">
      <div className="section-bar pt-bar">
        <form className="version-form" onSubmit={(e) => {
          e.preventDefault();
          const mb = Number(threshold);
          if (path && Number.isFinite(mb) && mb > 0) void store.getState().load(path, Math.round(mb * MB));
        }}>
          <label htmlFor="small-threshold">Small file under</label>
          <input id="small-threshold" className="path-input version-input mono" inputMode="decimal" value={threshold} onChange={(e) => setThreshold(e.target.value)} data-testid="small-threshold" />
          <span>MB</span>
          <button type="submit" className="btn btn-small" data-testid="small-apply">Apply</button>
        </form>
        <div role="radiogroup" aria-label="Chart metric" className="pt-metric">
          {(['rows', 'files', 'bytes'] as Metric[]).map((m) => (
            <label key={m}><input type="radio" name="pt-metric" checked={metric === m} onChange={() => setMetric(m)} /> {m}</label>
          ))}
        </div>
        <label className="pt-log"><input type="checkbox" checked={log} onChange={(e) => setLog(e.target.checked)} data-testid="log-scale" /> log scale</label>
        {h && (
          <label className="pt-pick">Version{' '}
            <select value={s.selected ?? ''} onChange={(e) => store.getState().select(Number(e.target.value))} data-testid="partitions-version">
              {[...h.versions].reverse().map((v) => <option key={v.version} value={v.version}>v{v.version} {v.operation ?? ''}</option>)}
            </select>
          </label>
        )}
      </div>
      {s.status === 'loading' && <JobProgress progress={s.progress} waiting="Reading the log…" onCancel={() => s.cancel()} testId="partitions-progress" />}
      {s.status === 'error' && s.error && <ErrorPanel error={s.error} onRetry={() => path && void store.getState().load(path)} />}
      {h && (
        <>
          {h.partitionColumns.length === 0 && <p className="muted small" data-testid="unpartitioned">This table is not partitioned: the whole table is one partition.</p>}
          <PartitionChart h={h} metric={metric} log={log} selected={s.selected} onPick={(v) => store.getState().select(v)} />
          {s.selected !== null && <AtVersion h={h} version={s.selected} />}
          <h2 className="pt-h">Sizes over time <span className="muted small">· the whole table: size, files, and files under {formatBytes(h.smallFileBytes)}</span></h2>
          <SizesChart h={h} log={log} />
        </>
      )}
    </div>
  );
}
