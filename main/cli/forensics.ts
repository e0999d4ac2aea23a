// `lakerec forensics TABLE [--partition-by COL] [--json]`: the log as an incident record. Every
// version's commit from the log alone, then the heuristics that fired, each with its evidence.
import { tableArg } from '../engine/location';
import { parseArgs, bool, int, str, requirePositional } from '../engine/args';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { forensics, forensicsCommit } from '../forensics/forensics';
import { matchesFilter, whoText, type CommitDetail, type CommitFile, type ForensicsResult, type HeuristicHit, type VersionFilter } from '../../shared/forensics';
import { LakerecError } from '../../shared/errors';

const USAGE = 'lakerec forensics TABLE [--partition-by COL] [--version N] [--operation OP] [--since ISO] [--until ISO] [--partition C=V] [--user U] [--writer W] [--text S] [--json] [--evidence] [--wide]';


/** ISO time to the second for the table (the JSON keeps milliseconds). */
export function toSeconds(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z');
}

function wrap(text: string, width: number, indent: string): string {
  const words = text.split(' ');
  const lines: string[] = [];
  let cur = '';
  for (const w of words) {
    if (cur && (cur.length + 1 + w.length) > width) { lines.push(cur); cur = indent + w; } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) lines.push(cur);
  return lines.join('\n');
}

function evidenceText(h: HeuristicHit): string {
  return Object.entries(h.evidence)
    .filter(([, v]) => v !== null && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
    .join('  ');
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export function formatForensics(r: ForensicsResult, opts: { evidence?: boolean; wide?: boolean } = {}): string {
  const out: string[] = [];
  const n = (x: number | null) => (x === null ? '?' : String(x));
  const partsText = (ps: string[]) => (ps.length <= 3 ? ps.join(', ') : `${ps.slice(0, 3).join(', ')} +${ps.length - 3} more`);
  out.push(`${'ver'.padStart(4)}  ${'when'.padEnd(20)}  ${'operation'.padEnd(16)}  ${'+files'.padStart(6)}  ${'-files'.padStart(6)}  ${'+rows'.padStart(8)}  ${'-rows'.padStart(8)}  ${r.partitionSource === 'none' ? '' : 'partitions'}`.trimEnd());
  for (let i = 0; i < r.versions.length; i++) {
    const v = r.versions[i];
    if (!v.readable && !v.hasCommitFile) {
      // A run of versions the log no longer holds: one line.
      let j = i;
      while (j + 1 < r.versions.length && !r.versions[j + 1].readable && !r.versions[j + 1].hasCommitFile) j++;
      const label = j > i ? `${v.version}-${r.versions[j].version}` : String(v.version);
      out.push(`${label.padStart(4)}  ${''.padEnd(20)}  (unreadable${j > i ? `, ${j - i + 1} versions` : ''}: ${v.unreadableReason ?? 'not in the log'})`);
      i = j;
      continue;
    }
    const op = (v.operation ?? '?') + (v.hasCheckpoint ? ' [cp]' : '');
    const when = toSeconds(v.when) + (v.timestampSource === 'file_mtime' ? '*' : '');
    out.push(`${String(v.version).padStart(4)}  ${when.padEnd(20)}  ${op.padEnd(16)}  ${String(v.addedFiles).padStart(6)}  ${String(v.removedFiles).padStart(6)}  ${n(v.addedRows).padStart(8)}  ${n(v.removedRows).padStart(8)}  ${partsText(v.partitions)}`.trimEnd());
    const who = whoText(v.who);
    if (who) out.push(`        ${who}`);
    if (opts.wide) {
      const params = Object.keys(v.operationParameters).length ? JSON.stringify(v.operationParameters) : '{}';
      const extra = [`params ${params}`, `+${bytes(v.addedBytes)}/-${bytes(v.removedBytes)}`, `writer ${v.writer ?? '?'}`, `isolation ${v.isolationLevel ?? '?'}`,
        `table ${n(v.tableRows)} row(s) in ${v.tableFiles} file(s)`, v.hasCheckpoint ? 'checkpoint' : 'no checkpoint'];
      if (v.rearrangeOnly) extra.push('dataChange=false (rewrite only)');
      if (v.dvDeletedRows) extra.push(`${v.dvDeletedRows} row(s) deleted by deletion vectors (${v.rewrittenFiles} file(s) rewritten in place)`);
      if (!v.readable) extra.push(`unreadable: ${v.unreadableReason ?? '?'}`);
      out.push('        ' + wrap(extra.join(' · '), 110, '        '));
    }
  }
  out.push('');
  const warn = r.heuristics;
  if (warn.length === 0) {
    out.push('worth a second look: nothing; the log shows no commit a human needs to look at');
  } else {
    out.push('worth a second look:');
    for (const h of warn) {
      out.push('  ' + wrap(`v${h.version} ${h.name}: ${h.message}`, 100, '     '));
      if (opts.evidence) out.push('     ' + wrap(`evidence: ${evidenceText(h)}`, 100, '       '));
    }
  }
  if (r.versions.some((v) => v.timestampSource === 'file_mtime')) out.push('note: * the commit has no commitInfo timestamp: the time shown is the commit file\'s mtime');
  for (const note of r.notes) out.push(`note: ${note}`);
  return out.join('\n') + '\n';
}

/** The versions (and the heuristics at them) that pass the filter: the timeline's filter, on the CLI. */
export function filterForensics(r: ForensicsResult, f: VersionFilter): ForensicsResult {
  if (!Object.values(f).some((x) => x !== undefined)) return r;
  const versions = r.versions.filter((v) => matchesFilter(v, f));
  const keep = new Set(versions.map((v) => v.version));
  return { ...r, versions, heuristics: r.heuristics.filter((h) => keep.has(h.version)), notes: [...r.notes, `filtered: ${versions.length} of ${r.versions.length} version(s) match ${JSON.stringify(f)}`] };
}

/** One commit opened (`--version N`): its summary, per-partition counts, files and heuristics. */
export function formatCommit(d: CommitDetail, opts: { evidence?: boolean } = {}): string {
  const v = d.summary;
  const n = (x: number | null) => (x === null ? '?' : String(x));
  const out: string[] = [];
  const params = Object.keys(v.operationParameters).length ? JSON.stringify(v.operationParameters) : '{}';
  out.push(`version ${v.version} · ${v.operation ?? '(no commitInfo)'} · ${toSeconds(v.when) || '?'} · ${params}`);
  const who = whoText(v.who);
  if (who) out.push(who);
  out.push(`writer ${v.writer ?? '?'} · isolation ${v.isolationLevel ?? '?'} · +${v.addedFiles} file(s)/${n(v.addedRows)} row(s)/${bytes(v.addedBytes)} · -${v.removedFiles} file(s)/${n(v.removedRows)} row(s)/${bytes(v.removedBytes)}`
    + ` · table after: ${n(v.tableRows)} row(s) in ${v.tableFiles} file(s)${v.hasCheckpoint ? ' · checkpoint' : ''}${v.readable ? '' : ` · unreadable: ${v.unreadableReason ?? '?'}`}`);
  if (d.partitions.some((p) => p.partition)) {
    const w = Math.max(9, ...d.partitions.map((p) => p.partition.length));
    out.push('', `${'partition'.padEnd(w)}  ${'+files'.padStart(6)}  ${'-files'.padStart(6)}  ${'+rows'.padStart(8)}  ${'-rows'.padStart(8)}`);
    const r = (p: { rowsKnown: boolean }, x: number) => (p.rowsKnown ? String(x) : `${x}+?`);
    for (const p of d.partitions) out.push(`${p.partition.padEnd(w)}  ${String(p.addedFiles).padStart(6)}  ${String(p.removedFiles).padStart(6)}  ${r(p, p.addedRows).padStart(8)}  ${r(p, p.removedRows).padStart(8)}${p.rewrittenFiles ? `  (${p.rewrittenFiles} rewritten in place)` : ''}`);
  }
  const files = (title: string, fs: CommitFile[]) => {
    if (!fs.length) return;
    out.push('', `${title}:`);
    for (const f of fs.slice(0, 50)) {
      const from = f.addedBeforeOldestReadable && title === 'removed' ? ' (added before the oldest readable version)'
        : title === 'removed' && f.addedIn !== null ? ` (written at v${f.addedIn})`
          : title === 'rewritten' ? ` (rewritten in place${f.rewrittenFrom != null ? `, written at v${f.rewrittenFrom}` : ''})` : '';
      out.push(`  ${f.path}  ${n(f.rows)} row(s)  ${bytes(f.bytes)}${f.dvRows ? `  deletion vector hides ${f.dvRows} row(s)` : ''}${from}`);
    }
    if (fs.length > 50) out.push(`  … ${fs.length - 50} more (--json lists them all)`);
  };
  files('added', d.added);
  files('removed', d.removed);
  files('rewritten', d.rewritten);
  out.push('');
  if (!d.heuristics.length) out.push('worth a second look: nothing at this version');
  else {
    out.push('worth a second look:');
    for (const h of d.heuristics) {
      out.push('  ' + wrap(`v${h.version} ${h.name}: ${h.message}`, 100, '     '));
      if (opts.evidence) out.push('     ' + wrap(`evidence: ${evidenceText(h)}`, 100, '       '));
    }
  }
  return out.join('\n') + '\n';
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS.forensics.flags);
  const filter: VersionFilter = {};
  for (const k of ['operation', 'since', 'until', 'partition', 'user', 'writer', 'text'] as const) {
    const x = str(p, k);
    if (x === undefined) continue;
    if ((k === 'since' || k === 'until') && Number.isNaN(Date.parse(x))) throw new LakerecError('usage', `--${k} ${x}: not a timestamp (use ISO 8601, e.g. 2026-08-10T12:00:00Z)`);
    filter[k] = x;
  }
  const [tablePath] = requirePositional(p, 1, USAGE);
  const version = int(p, 'version');
  if (version !== undefined) {
    const d = await forensicsCommit(tableArg(io.cwd, tablePath), version, { partitionBy: str(p, 'partition-by'), allowOutsidePaths: bool(p, 'allow-outside-paths') });
    io.out(bool(p, 'json') ? JSON.stringify(d, null, 2) + '\n' : formatCommit(d, { evidence: bool(p, 'evidence') }));
    return 0;
  }
  const r = filterForensics(await forensics(tableArg(io.cwd, tablePath), { partitionBy: str(p, 'partition-by'), allowOutsidePaths: bool(p, 'allow-outside-paths') }), filter);
  if (bool(p, 'json')) io.out(JSON.stringify(r, null, 2) + '\n');
  else io.out(formatForensics(r, { evidence: bool(p, 'evidence'), wide: bool(p, 'wide') }));
  // Heuristics are leads for a human, not verdicts: forensics exits 0 when the log could be read.
  return 0;
}

export { whoText };
