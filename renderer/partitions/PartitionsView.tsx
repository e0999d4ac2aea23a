// The Partitions tab: per partition rows, files and bytes at every version (a chart of the
// largest partitions, and the table at the selected version), small files under a threshold the
// user sets, and the whole table's sizes over time. All from the log: no data file is read.
import { useEffect, useMemo, useState } from 'react';
import { partitionsAt, type PartitionHealth } from '../../shared/views';
import { TableGate } from '../app/TableGate';
import { useClient, useWorkbench } from '../state/context';
import { ErrorPanel } from '../ui/ErrorPanel';
import { JobProgress } from '../ui/JobProgress';
import { CopyButton } from '../ui/CopyButton';
import { StepChart } from '../ui/StepChart';
import type { StepSeries } from '../ui/stepchart';
import { compact, formatBytes, formatInt } from '../ui/format';
import { partitionsStoreFor, usePartitions } from './store';
import './partitions.css';

const COLORS = ['#0969da', '#8250df', '#bf3989', '#cf222e', '#bc4c00', '#4d2d00', '#1a7f37', '#116329', '#0550ae', '#6e7781'];
const MB = 1024 * 1024;

type Metric = 'rows' | 'files' | 'bytes';

function seriesFor(h: PartitionHealth, metric: Metric, top: string[]): StepSeries[] {
  const state = new Map<string, number>();
  const values = top.map(() => [] as number[]);
  for (const v of h.versions) {
    for (const p of v.partitions) state.set(p.partition, metric === 'rows' ? p.rows ?? 0 : metric === 'files' ? p.files : p.bytes);
    top.forEach((t, i) => values[i].push(state.get(t) ?? 0));
  }
  return top.map((t, i) => ({ name: t || '(whole table)', color: COLORS[i % COLORS.length], values: values[i] }));
}

function PartitionChart({ h, metric, log, onPick, selected }: { h: PartitionHealth; metric: Metric; log: boolean; onPick(v: number): void; selected: number | null }) {
  const latest = h.versions.length ? partitionsAt(h, h.versions[h.versions.length - 1].version) : [];
  const top = useMemo(() => {
    const peak = new Map<string, number>();
    for (const v of h.versions) for (const p of v.partitions) peak.set(p.partition, Math.max(peak.get(p.partition) ?? 0, metric === 'rows' ? p.rows ?? 0 : metric === 'files' ? p.files : p.bytes));
    return [...peak.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k]) => k);
  }, [h, metric]);
  const series = useMemo(() => seriesFor(h, metric, top), [h, metric, top]);
  const xs = useMemo(() => h.versions.map((v) => v.version), [h]);
  const fmt = metric === 'bytes' ? formatBytes : compact;
  return (
    <div className="pt-chart" data-testid="partition-health-chart" data-partitions={h.partitions.length}>
      <p className="muted small">{metric} per partition at every version: the {top.length} largest of {h.partitions.length} partitions seen{latest.length !== h.partitions.length ? ` (${latest.length} hold files at the latest version)` : ''}. Click a point to open that version.</p>
      <StepChart xs={xs} series={series} height={260} log={log} format={fmt} selected={selected} onPick={onPick} label={`${metric} per partition at every version`} />
    </div>
  );
}

const mbText = (n: number): string => `${compact(n)} MB`;

function SizesChart({ h, log }: { h: PartitionHealth; log: boolean }) {
  const xs = useMemo(() => h.versions.map((v) => v.version), [h]);
  const series = useMemo((): StepSeries[] => [
    { name: 'size', color: '#0969da', values: h.versions.map((v) => v.bytes / MB) },
    { name: 'files', color: '#8250df', values: h.versions.map((v) => v.files), axis: 'right' },
    { name: 'small files', color: '#bc4c00', values: h.versions.map((v) => v.smallFiles), axis: 'right', dashed: true },
  ], [h]);
  return (
    <div className="pt-chart" data-testid="sizes-chart">
      <StepChart xs={xs} series={series} height={200} log={log} logFloor={0.001} format={mbText} formatRight={formatInt}
        formatTip={(n, s) => (s.name === 'size' ? `${n.toFixed(2)} MB` : formatInt(n))} label="Table size, files and small files at every version" />
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
  if (tableStatus !== 'ready') return <TableGate />;
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
