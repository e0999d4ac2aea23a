// One version opened: its commit (operation, parameters, writer, metrics), the findings at it,
// what changed per partition (a bar chart), and the files it added and removed.
import { useRef, useState } from 'react';
import type { CommitFile, PartitionChange } from '../../shared/api';
import { HEURISTIC_LABELS, type EvidenceValue, type HeuristicHit } from '../../shared/forensics';
import { ErrorPanel } from '../ui/ErrorPanel';
import { CopyButton } from '../ui/CopyButton';
import { useNav } from '../app/nav';
import { canBisect, useBisectThis } from '../app/next-step';
import { formatUtc, operationKind } from '../ui/format';
import type { DetailState } from '../state/timeline';
import { niceAxis } from './timeline';
import { compact, formatBytes, formatInt } from '../ui/format';
import { useElementWidth } from '../ui/useElementHeight';
import { WindowedList } from '../ui/WindowedList';
import { whoLine } from '../ui/who';
import { CommitLineageLink } from '../ui/CommitLineageLink';

function value(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

function evidence(v: EvidenceValue): string {
  if (Array.isArray(v)) return v.length > 12 ? `${v.slice(0, 12).join(', ')} … (${v.length})` : v.join(', ');
  return value(v);
}

export function Finding({ h }: { h: HeuristicHit }) {
  const ev = Object.entries(h.evidence);
  const bisectThis = useBisectThis();
  return (
    <div className={`finding ${h.severity}`} data-testid="commit-finding" data-name={h.name}>
      <div className="finding-head">
        <span className={`sev sev-${h.severity}`}>{h.severity}</span>
        <span className="finding-label" data-testid="commit-finding-label">{HEURISTIC_LABELS[h.name]}</span>
        <code className="finding-name">{h.name}</code>
        {canBisect(h.name) && (
          <button type="button" className="btn btn-small finding-next" data-testid="bisect-this"
            title="Open Bisect with the predicate this finding calls for, its arguments filled in"
            onClick={() => void bisectThis(h.name, h.evidence)}>Bisect this</button>
        )}
      </div>
      <p className="finding-msg">{h.message}</p>
      {ev.length > 0 && (
        <dl className="kv evidence">
          {ev.map(([k, v]) => <div key={k}><dt>{k}</dt><dd className="mono">{evidence(v)}</dd></div>)}
        </dl>
      )}
    </div>
  );
}

/** The partition chart's frame: labels on the left, the row axis below. */
const PART = { left: 158, right: 24, top: 4, axis: 26, row: 22 } as const;
const PART_LABEL_CHARS = 22;

/**
 * Rows added (right) and removed (left) per partition the commit touched: one SVG of our own
 * (as the timeline), so stepping through versions re-draws a few rectangles, not a chart library.
 */
function PartitionChart({ parts }: { parts: PartitionChange[] }) {
  const shown = parts.length > 40 ? [...parts].sort((a, b) => (b.addedRows + b.removedRows) - (a.addedRows + a.removedRows)).slice(0, 40) : parts;
  const height = Math.max(70, 26 + shown.length * PART.row);
  const ref = useRef<HTMLDivElement>(null);
  const width = useElementWidth(ref);
  const [hover, setHover] = useState<number | null>(null);
  let hi = 0;
  let lo = 0;
  for (const p of shown) { hi = Math.max(hi, p.addedRows); lo = Math.min(lo, -p.removedRows); }
  const axis = niceAxis(lo, hi === 0 && lo === 0 ? 1 : hi);
  const [x0, x1] = axis.domain;
  const plotW = Math.max(1, width - PART.left - PART.right);
  const xOf = (n: number) => PART.left + ((n - x0) / (x1 - x0 || 1)) * plotW;
  const bottom = height - PART.axis;
  const band = (bottom - PART.top) / Math.max(1, shown.length);
  const thick = band * 0.56;
  const tip = hover === null ? undefined : shown[hover];
  return (
    <div className="partition-chart" data-testid="partition-chart" data-partitions={parts.length} ref={ref}>
      {parts.length > shown.length && <p className="muted small">The {shown.length} partitions that changed most of {parts.length}.</p>}
      {width > 0 && (
        <svg width={width} height={height} role="img" aria-label="Rows added and removed per partition" onMouseLeave={() => setHover(null)}>
          {axis.ticks.map((t) => <line key={`g${t}`} x1={xOf(t)} x2={xOf(t)} y1={PART.top} y2={bottom} stroke="#eef0f3" />)}
          {shown.map((p, i) => {
            const y = PART.top + i * band;
            const name = p.partition || '(whole table)';
            return (
              <g key={name} onMouseEnter={() => setHover(i)}>
                <rect x={0} y={y} width={width} height={band} fill={hover === i ? 'rgba(9,105,218,0.06)' : 'transparent'} />
                <text x={PART.left - 6} y={y + band / 2} dy="0.35em" textAnchor="end" fontSize={11} fill="#1f2328" fontFamily="ui-monospace, monospace">
                  {name.length > PART_LABEL_CHARS ? `${name.slice(0, PART_LABEL_CHARS - 1)}…` : name}
                  <title>{name}</title>
                </text>
                {p.addedRows > 0 && <rect className="partition-bar" x={xOf(0)} y={y + (band - thick) / 2} width={xOf(p.addedRows) - xOf(0)} height={thick} fill="#2da44e" />}
                {p.removedRows > 0 && <rect className="partition-bar" x={xOf(-p.removedRows)} y={y + (band - thick) / 2} width={xOf(0) - xOf(-p.removedRows)} height={thick} fill="#cf222e" fillOpacity={0.75} />}
              </g>
            );
          })}
          <line x1={xOf(0)} x2={xOf(0)} y1={PART.top} y2={bottom} stroke="#8c959f" />
          <line x1={PART.left} x2={PART.left + plotW} y1={bottom} y2={bottom} stroke="#666" />
          {axis.ticks.map((t) => (
            <g key={`t${t}`}>
              <line x1={xOf(t)} x2={xOf(t)} y1={bottom} y2={bottom + 6} stroke="#666" />
              <text x={xOf(t)} y={bottom + 18} textAnchor="middle" fontSize={11} fill="#57606a">{compact(t)}</text>
            </g>
          ))}
        </svg>
      )}
      {tip && hover !== null && (
        <div className="chart-tip partition-tip" style={{ top: PART.top + (hover + 1) * band + 4, left: PART.left }}>
          <div className="chart-tip-title mono">{tip.partition || '(whole table)'}</div>
          <div className="mono"><span className="add">+{formatInt(tip.addedRows)}</span> rows in {tip.addedFiles} file(s), {formatBytes(tip.addedBytes)}</div>
          <div className="mono"><span className="remove">−{formatInt(tip.removedRows)}</span> rows in {tip.removedFiles} file(s), {formatBytes(tip.removedBytes)}</div>
          {tip.rewrittenFiles > 0 && <div className="muted">{tip.rewrittenFiles} file(s) rewritten in place (deletion vectors): their deleted rows count as removed</div>}
          {!tip.rowsKnown && <div className="muted">some files have no row count in their stats</div>}
        </div>
      )}
    </div>
  );
}

function FileTable({ files, total, kind }: { files: CommitFile[]; total: number; kind: 'added' | 'removed' | 'rewritten' }) {
  if (total === 0) return <p className="muted small" data-testid={`files-${kind}-empty`}>No files {kind}.</p>;
  const head = (
    <div className="frow fhead"><span>Path</span><span>Partition</span><span className="num">Rows</span><span className="num">Size</span><span /></div>
  );
  const line = (f: CommitFile, i: number) => (
    <div key={i} className="frow" data-testid={`file-${kind}`}>
      <span className="mono ellipsis" title={f.path}>{f.path}</span>
      <span className="mono ellipsis" title={f.partition}>{f.partition || '—'}</span>
      <span className={`mono num ${kind === 'added' ? 'add' : kind === 'removed' ? 'remove' : ''}`}>{formatInt(f.rows)}</span>
      <span className="mono num">{formatBytes(f.bytes)}</span>
      <span className="muted small" title={f.addedBeforeOldestReadable ? 'added before the oldest readable version: listed from the remove action itself' : undefined}>
        {f.deletionVector ? `DV −${formatInt(f.dvRows)} ` : ''}{f.dataChange ? '' : 'rearrange '}
        {f.addedBeforeOldestReadable && kind === 'removed' ? <span data-testid="file-before-log">added before the oldest readable version</span> : null}
        {kind === 'rewritten' && f.rewrittenFrom != null ? `written at v${f.rewrittenFrom}` : ''}
        <CopyButton text={f.path} label={`Copy the path ${f.path}`} />
      </span>
    </div>
  );
  return (
    <div className="files" data-testid={`files-${kind}`}>
      {head}
      {files.length > 60 ? (
        <WindowedList items={files} rowHeight={24} row={line} className="files-window" />
      ) : (
        files.map(line)
      )}
      {total > files.length && <p className="muted small">Showing the first {files.length} of {total.toLocaleString('en-US')} files.</p>}
    </div>
  );
}

/** The next questions about this version, each on its own screen. */
function CommitActions({ version, addedFiles }: { version: number; addedFiles: number }) {
  const nav = useNav();
  return (
    <div className="commit-actions" role="group" aria-label="Next steps for this version">
      <button type="button" className="btn btn-small" data-testid="rows-at" onClick={() => nav.openRows(version)}>Rows at this version</button>
      {addedFiles > 0 && <button type="button" className="btn btn-small" data-testid="rows-added" onClick={() => nav.openRows(version, version)}>Rows added by this commit</button>}
      {version > 0 && <button type="button" className="btn btn-small" data-testid="compare-previous" onClick={() => nav.openCompare(version - 1, version)}>Compare with v{version - 1}</button>}
      {/* Two versions picked in the timeline: mark one, open the other, compare (older as the source). */}
      {nav.compareMark === null || nav.compareMark === version
        ? <button type="button" className="btn btn-small" data-testid="compare-mark" aria-pressed={nav.compareMark === version}
            onClick={() => nav.markCompare(nav.compareMark === version ? null : version)}>{nav.compareMark === version ? `Marked v${version} to compare: pick another version` : 'Mark to compare'}</button>
        : <button type="button" className="btn btn-small btn-primary" data-testid="compare-marked"
            onClick={() => nav.openCompare(Math.min(nav.compareMark!, version), Math.max(nav.compareMark!, version))}>Compare v{Math.min(nav.compareMark, version)} → v{Math.max(nav.compareMark, version)}</button>}
      <button type="button" className="btn btn-small" data-testid="reconcile-against" onClick={() => nav.reconcileAgainst(version)}>Reconcile against this version</button>
    </div>
  );
}

export function CommitPanel({ detail, onRetry, onStep }: { detail: DetailState | null; onRetry(): void; onStep(d: number): void }) {
  if (!detail) {
    return <div className="panel-empty" data-testid="commit-empty">Click a version in the timeline or the list to see its commit.</div>;
  }
  if (detail.status === 'error' && detail.error) {
    return <div className="pad"><ErrorPanel error={detail.error} onRetry={onRetry} /></div>;
  }
  if (detail.status !== 'ready' || !detail.data) {
    return (
      <div className="commit" data-testid="commit-loading">
        <div className="commit-title"><h2>Version {detail.version}</h2><span className="spinner" aria-hidden="true" /></div>
        <div className="skeleton" /><div className="skeleton short" /><div className="skeleton" />
      </div>
    );
  }
  const d = detail.data;
  const s = d.summary;
  const params = Object.entries(s.operationParameters);
  const metrics = Object.entries((d.commitInfo?.operationMetrics as Record<string, unknown> | undefined) ?? {});
  return (
    <div className="commit" data-testid="commit-detail" data-version={s.version}>
      <div className="commit-title">
        <h2 data-testid="commit-version">Version {s.version}</h2>
        <CopyButton text={String(s.version)} label="Copy the version number" />
        <span className={`op op-${operationKind(s.operation)}`}>{s.operation ?? 'no commitInfo'}</span>
        <span className="mono muted" title={s.timestampSource === 'file_mtime' ? 'no commitInfo timestamp: this is the commit file\'s mtime' : undefined}>
          {s.timestamp ? `${formatUtc(s.timestamp)} UTC${s.timestampSource === 'file_mtime' ? ' (file time)' : ''}` : ''}
        </span>
        <span className="spacer" />
        <span className="step-group">
          <span className="kbd-hint">← → step</span>
          <button type="button" className="btn btn-small" aria-label="Older version" onClick={() => onStep(-1)}>‹</button>
          <button type="button" className="btn btn-small" aria-label="Newer version" onClick={() => onStep(1)}>›</button>
        </span>
      </div>
      <CommitActions version={s.version} addedFiles={s.addedFiles} />
      <CommitLineageLink />
      {!s.readable && (
        <div className="banner warn" data-testid="commit-unreadable">This version can no longer be read: {s.unreadableReason ?? 'its commits or files are gone'}.</div>
      )}
      {d.heuristics.length > 0 && (
        <section className="commit-section">
          <h3>Findings at this version</h3>
          {d.heuristics.map((h, i) => <Finding key={i} h={h} />)}
        </section>
      )}
      <section className="commit-section">
        <h3>Commit</h3>
        <dl className="kv">
          <div><dt>Operation</dt><dd>{s.operation ?? '—'}</dd></div>
          <div><dt>Writer</dt><dd className="mono">{s.writer ?? '—'}</dd></div>
          <div><dt>Who</dt><dd data-testid="commit-who">{whoLine(s.who) || '—'}</dd></div>
          <div><dt>Isolation</dt><dd>{s.isolationLevel ?? '—'}</dd></div>
          <div><dt>Read version</dt><dd className="mono">{s.readVersion ?? '—'}</dd></div>
          <div><dt>Blind append</dt><dd>{s.isBlindAppend === null ? '—' : s.isBlindAppend ? 'yes' : 'no'}</dd></div>
          <div><dt>Files</dt><dd className="mono"><span className="add">+{s.addedFiles}</span> <span className="remove">−{s.removedFiles}</span></dd></div>
          <div><dt>Rows</dt><dd className="mono" data-testid="commit-rows"><span className="add">+{formatInt(s.addedRows)}</span> <span className="remove">−{formatInt(s.removedRows)}</span>{s.dvDeletedRows ? ` (of which −${formatInt(s.dvDeletedRows)} by deletion vectors)` : ''}</dd></div>
          <div><dt>Bytes</dt><dd className="mono">+{formatBytes(s.addedBytes)} −{formatBytes(s.removedBytes)}</dd></div>
          <div><dt>Table after</dt><dd className="mono">{formatInt(s.tableRows)} rows · {s.tableFiles} files</dd></div>
          <div><dt>Log</dt><dd>{s.hasCommitFile ? 'commit file' : 'no commit file'}{s.hasCheckpoint ? ' · checkpoint' : ''}{s.protocolChanged ? ' · protocol changed' : ''}{s.metadataChanged ? ' · metadata changed' : ''}{s.rearrangeOnly ? ' · rearrange only' : ''}</dd></div>
        </dl>
        {params.length > 0 && (
          <>
            <h4>Parameters</h4>
            <dl className="kv">{params.map(([k, v]) => <div key={k}><dt>{k}</dt><dd className="mono">{value(v)}</dd></div>)}</dl>
          </>
        )}
        {metrics.length > 0 && (
          <>
            <h4>Metrics</h4>
            <dl className="kv metrics">{metrics.map(([k, v]) => <div key={k}><dt>{k}</dt><dd className="mono">{value(v)}</dd></div>)}</dl>
          </>
        )}
      </section>
      <section className="commit-section">
        <h3>Rows changed per partition</h3>
        {d.partitions.length === 0 ? <p className="muted small">This version added and removed no data files.</p> : <PartitionChart parts={d.partitions} />}
      </section>
      <section className="commit-section">
        <h3>Files added <span className="count">{s.addedFiles}</span></h3>
        <FileTable files={d.added} total={s.addedFiles} kind="added" />
        <h3>Files removed <span className="count">{s.removedFiles}</span></h3>
        <FileTable files={d.removed} total={s.removedFiles} kind="removed" />
        {s.rewrittenFiles > 0 && (
          <>
            <h3>Files rewritten in place <span className="count">{s.rewrittenFiles}</span></h3>
            <FileTable files={d.rewritten} total={s.rewrittenFiles} kind="rewritten" />
          </>
        )}
      </section>
    </div>
  );
}
