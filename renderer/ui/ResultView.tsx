// A reconcile result: the verdict banner, rows read vs avoided, findings as cards (meaning,
// evidence, action), the per-partition grid, and example rows side by side.
import { noPartitionsSentence, nothingFoundSentence, type Finding, type PartitionResult, type ReconcileResult, type RowDiff } from '../../shared/reconcile';
import { ExportReport } from './ExportReport';
import { canBisect, useBisectThis } from '../app/next-step';
import { CopyButton } from './CopyButton';

const fmt = (n: number | null) => (n === null ? 'not read' : n.toLocaleString('en-US'));
const short = (h: string | null) => (h ? h.slice(0, 12) : '—');

function partitionClass(p: PartitionResult): string {
  switch (p.state) {
    case 'match': case 'counts_match': return 'p-ok';
    case 'late': return 'p-late';
    default: return 'p-bad';
  }
}

const STATE_WORDS: Record<PartitionResult['state'], string> = {
  match: 'match',
  counts_match: 'counts match',
  differs: 'differs',
  missing_in_target: 'missing in target',
  missing_in_source: 'not in source',
  late: 'late (allowed)',
};

function Verdict({ r }: { r: ReconcileResult }) {
  const ok = r.verdict === 'matches';
  const blocking = r.findings.filter((f) => f.blocking);
  return (
    <div className={`verdict-banner ${ok ? 'ok' : 'bad'}`} data-testid="verdict" data-verdict={r.verdict}>
      <div className="verdict-mark" aria-hidden="true">{ok ? '✓' : '✕'}</div>
      <div className="verdict-body">
        <div className="verdict-title">
          {ok ? 'Matches' : 'Diverges'}
          {blocking.length > 0 && <span className="verdict-modes">{blocking.map((f) => <code key={f.mode}>{f.mode}</code>)}</span>}
        </div>
        <div className="verdict-sub">
          level <b>{r.level}</b> · exit code {r.exitCode} · {r.level === 'schema'
            ? <span data-testid="schema-no-rows">the schema level compares columns and types and reads no rows ({r.source.kind} source, target @ v{r.target.version ?? '?'})</span>
            : r.pushed
              ? <>source {fmt(r.source.rows)} {r.source.rows === 1 ? 'row' : 'rows'} computed on {r.pushed.source.where} · target {fmt(r.target.rows)} {r.target.rows === 1 ? 'row' : 'rows'} computed on {r.pushed.target.where}</>
              : <>source {fmt(r.source.rows)} {r.source.rows === 1 ? 'row' : 'rows'} ({r.source.kind}) · target {fmt(r.target.rows)} {r.target.rows === 1 ? 'row' : 'rows'} @ v{r.target.version ?? '?'}</>} · {(r.durationMs / 1000).toFixed(2)} s
        </div>
      </div>
      {r.pushed ? (
        <dl className="reads" data-testid="reads">
          <div><dt>Statements run</dt><dd className="mono">{fmt(r.pushed.ran.length)}</dd></div>
          <div><dt>Bytes back</dt><dd className="mono">{fmt(r.pushed.bytesTransferred)}</dd></div>
          <div><dt>Key rows fetched</dt><dd className="mono">{fmt(r.pushed.keyRowsFetched)}{r.pushed.capped ? ` (capped at ${fmt(r.pushed.keyRowCap)})` : ''}</dd></div>
        </dl>
      ) : (
      <dl className="reads" data-testid="reads">
        <div><dt>Target rows read</dt><dd className="mono">{fmt(r.reads.targetRowsRead)}</dd></div>
        <div><dt>Avoided (baseline)</dt><dd className="mono">{fmt(r.reads.targetRowsAvoided)}</dd></div>
        <div><dt>Source rows read</dt><dd className="mono">{fmt(r.reads.sourceRowsRead)}</dd></div>
        <div><dt>Files read</dt><dd className="mono">{fmt(r.reads.targetFilesRead)} / {fmt(r.reads.targetFilesTotal)}</dd></div>
      </dl>
      )}
    </div>
  );
}

function FindingCard({ f, keys }: { f: Finding; keys: string[] }) {
  const ev = f.evidence;
  const bisectThis = useBisectThis();
  return (
    <article className={`finding-card ${f.blocking ? 'blocking' : 'info'}`} data-testid="finding" data-mode={f.mode}>
      <header>
        <code className="finding-mode">{f.mode}</code>
        <span className={`pill ${f.blocking ? 'pill-bad' : 'pill-info'}`}>{f.blocking ? 'blocking' : 'reported'}</span>
        <span className="finding-summary">{f.summary}</span>
        {canBisect(f.mode) && (
          <button type="button" className="btn btn-small finding-next" data-testid="bisect-this"
            title="Find the first version of the table where this went wrong"
            onClick={() => void bisectThis(f.mode, { partitions: ev.partitions }, keys)}>Bisect this</button>
        )}
      </header>
      <div className="finding-grid">
        <div><h4>Meaning</h4><p>{f.meaning}</p></div>
        <div>
          <h4>Evidence <span className="muted">(level {f.level})</span></h4>
          <ul className="evidence">
            {Object.entries(ev.counts).map(([k, v]) => <li key={k}><span className="mono strong">{fmt(v)}</span> {k}</li>)}
            {ev.partitions.length > 0 && <li>partitions {ev.partitions.map((p) => <code key={p}>{p}</code>)}</li>}
            {ev.exampleKeys.length > 0 && <li>e.g. {ev.exampleKeys.slice(0, 4).map((k) => <span key={k}><code>{k}</code><CopyButton text={k} label={`Copy the key ${k}`} /></span>)}</li>}
            {ev.notes.map((n, i) => <li key={i}>{n}</li>)}
          </ul>
        </div>
        <div><h4>Action</h4><p>{f.action}</p></div>
      </div>
    </article>
  );
}

function Partitions({ parts }: { parts: PartitionResult[] }) {
  const max = Math.max(1, ...parts.map((p) => Math.max(p.sourceRows, p.targetRows)));
  return (
    <div className="grid-wrap rc-grid">
      <table className="grid" data-testid="partition-grid">
        <thead>
          <tr>
            <th>Partition</th><th className="num">Source rows</th><th className="num">Target rows</th><th className="num">Δ</th>
            <th>Rows</th><th>Source checksum</th><th>Target checksum</th><th>State</th>
          </tr>
        </thead>
        <tbody>
          {parts.map((p) => {
            const d = p.targetRows - p.sourceRows;
            const sumState = p.sourceChecksum === null ? 'none' : p.sourceChecksum === p.targetChecksum ? 'same' : 'differs';
            return (
              <tr key={p.partition} className={partitionClass(p)} data-testid="partition-row" data-state={p.state}>
                <td className="mono strong">{p.partition}</td>
                <td className="num mono">{fmt(p.sourceRows)}</td>
                <td className="num mono">{fmt(p.targetRows)}</td>
                <td className={`num mono ${d > 0 ? 'add' : d < 0 ? 'remove' : 'muted'}`}>{d > 0 ? `+${fmt(d)}` : d < 0 ? `−${fmt(-d)}` : '0'}</td>
                <td className="bars-cell">
                  <div className="mini-bar src" style={{ width: `${(100 * p.sourceRows) / max}%` }} />
                  <div className="mini-bar tgt" style={{ width: `${(100 * p.targetRows) / max}%` }} />
                </td>
                <td className={`mono sum-${sumState}`}>{short(p.sourceChecksum)}{p.sourceChecksum && <CopyButton text={p.sourceChecksum} label="Copy the source checksum" />}</td>
                <td className={`mono sum-${sumState}`}>{short(p.targetChecksum)}{p.inherited ? ' (baseline)' : ''}{p.targetChecksum && <CopyButton text={p.targetChecksum} label="Copy the target checksum" />}</td>
                <td><span className={`state state-${partitionClass(p)}`}>{STATE_WORDS[p.state]}</span></td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** "dt=2026-08-12/part-…c000.snappy.parquet#3 · v7 WRITE" (the commit that added the target row's file). */
function writtenBy(r: RowDiff): string {
  // A duplicated key: the commit of each copy (the retried batch is the newer one).
  if (r.targetRows && r.targetRows.length > 1) return r.targetRows.map((p) => (p.commit ? `v${p.commit.version}${p.commit.operation ? ` ${p.commit.operation}` : ''}` : '?')).join(' + ');
  if (!r.targetFile) return '';
  const file = r.targetFile.length > 36 ? `…${r.targetFile.slice(-34)}` : r.targetFile;
  const c = r.targetCommit;
  return `${file}${r.targetRow === null || r.targetRow === undefined ? '' : `#${r.targetRow}`}${c ? ` · v${c.version}${c.operation ? ` ${c.operation}` : ''}${c.timestamp ? ` ${new Date(c.timestamp).toISOString().slice(0, 16).replace('T', ' ')}` : ''}` : ''}`;
}

function RowDiffs({ rows }: { rows: RowDiff[] }) {
  const cols = [...new Set(rows.flatMap((r) => [...Object.keys(r.source ?? {}), ...Object.keys(r.target ?? {})]))];
  return (
    <div className="grid-wrap rc-grid">
      <table className="grid diff-grid" data-testid="row-diffs">
        <thead>
          <tr><th>Key</th><th>Kind</th><th>Partition</th><th>Side</th><th title="The data file, its row, and the commit that added the file">Written by</th>{cols.map((c) => <th key={c}>{c}</th>)}</tr>
        </thead>
        <tbody>
          {rows.flatMap((r, i) => {
            const key = Object.entries(r.key).map(([k, v]) => `${k}=${v ?? 'null'}`).join(', ');
            const sides: ['source' | 'target', Record<string, string | null> | null][] = [['source', r.source], ['target', r.target]];
            return sides.filter(([, row]) => row !== null).map(([side, row], j) => (
              <tr key={`${i}-${side}`} className={j === 0 ? 'diff-first' : 'diff-second'} data-testid="row-diff">
                {j === 0 ? <td className="mono strong" rowSpan={r.source && r.target ? 2 : 1}>{key}</td> : null}
                {j === 0 ? <td rowSpan={r.source && r.target ? 2 : 1}><span className="state state-p-bad">{r.kind}</span></td> : null}
                <td className="mono muted">{side === 'source' ? r.sourcePartition ?? '—' : r.targetPartition ?? '—'}</td>
                <td className="muted">{side}</td>
                <td className="mono muted" data-testid={side === 'target' ? 'row-provenance' : undefined} title={side === 'target' && r.targetFile ? r.targetFile : undefined}>{side === 'target' ? writtenBy(r) : ''}</td>
                {cols.map((c) => {
                  const v = row?.[c];
                  const differs = r.columns.includes(c);
                  return <td key={c} className={`mono${differs ? ' cell-diff' : ''}`}>{v === null || v === undefined ? <span className="null">null</span> : v}</td>;
                })}
              </tr>
            ));
          })}
        </tbody>
      </table>
    </div>
  );
}

/** `exportable`: offer the incident report (a result the engine keeps; not for compare or a reopened run). */
export function ReconcileResultView({ result: r, exportable = true }: { result: ReconcileResult; exportable?: boolean }) {
  const keys = r.contract.keys.map((k) => r.contract.renames[k] ?? k);
  const examples = r.rowDiffs.length > 0 ? r.rowDiffs : r.findings.flatMap((f) => f.evidence.exampleRows).slice(0, 10);
  return (
    <div className="rc-result" data-testid="reconcile-result">
      <Verdict r={r} />
      {exportable && <ExportReport />}
      <div className="section-bar">
        <h2>Findings</h2>
        <span className="count">{r.findings.length + r.unnamed.length}</span>
      </div>
      <div className="findings">
        {r.findings.length === 0 && r.unnamed.length === 0 && (
          <p className="rc-empty inline" data-testid="no-findings">{nothingFoundSentence(r)}</p>
        )}
        {r.findings.map((f, i) => <FindingCard key={`${f.mode}-${i}`} f={f} keys={keys} />)}
        {r.unnamed.length > 0 && (
          <article className="finding-card blocking" data-testid="finding-unnamed">
            <header><code className="finding-mode">diverges</code><span className="finding-summary">Divergence no finding names (the evidence does not say which mode)</span></header>
            <ul className="evidence">{r.unnamed.map((u, i) => <li key={i}>{u}</li>)}</ul>
          </article>
        )}
      </div>
      <div className="section-bar">
        <h2>Partitions</h2>
        <span className="count">{r.partitions.length}</span>
        <span className="section-note">source vs target rows and checksums (sum of row digests mod 2^128)</span>
      </div>
      {r.partitions.length > 0 ? <Partitions parts={r.partitions} /> : <p className="rc-empty inline" data-testid="no-partitions">{noPartitionsSentence(r.level)}</p>}
      {examples.length > 0 && (
        <>
          <div className="section-bar">
            <h2>Example rows</h2>
            <span className="count">{examples.length}</span>
            {r.columnDiffs.length > 0 && <span className="section-note">columns that differ: {r.columnDiffs.map((c) => `${c.column} (${fmt(c.rows)})`).join(', ')}</span>}
          </div>
          <RowDiffs rows={examples} />
        </>
      )}
      {r.pushed && <PushedRuns p={r.pushed} />}
      {r.notes.length > 0 && (
        <ul className="rc-notes">{r.notes.map((n, i) => <li key={i}>{n}</li>)}</ul>
      )}
    </div>
  );
}

/** What ran where: every pushed statement with its SQL identity, engine, query id and bytes, and what the run did not examine. */
function PushedRuns({ p }: { p: NonNullable<ReconcileResult['pushed']> }) {
  return (
    <>
      <div className="section-bar">
        <h2>What ran where</h2>
        <span className="count">{p.ran.length}</span>
        <span className="section-note">source: {p.source.label} · target: {p.target.label} · {fmt(p.bytesTransferred)} bytes of results</span>
      </div>
      <div className="grid-wrap rc-grid">
        <table className="grid" data-testid="pushed-ran">
          <thead><tr><th>Level</th><th>SQL</th><th>Where</th><th>Query id</th><th className="num">Rows</th><th className="num">Bytes</th><th className="num">ms</th></tr></thead>
          <tbody>
            {p.ran.map((x, i) => (
              <tr key={i} title={x.purpose}>
                <td>{x.level}</td><td className="mono">{x.sqlId}</td><td className="mono muted">{x.where}</td><td className="mono muted">{x.queryId ?? '(none given)'}</td>
                <td className="num mono">{fmt(x.rows)}</td><td className="num mono">{fmt(x.bytes)}</td><td className="num mono">{fmt(x.ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {p.notExamined.length > 0 && (
        <ul className="rc-notes" data-testid="pushed-not-examined">{p.notExamined.map((n, i) => <li key={i}>Not examined: {n}</li>)}</ul>
      )}
    </>
  );
}
