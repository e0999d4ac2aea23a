// Benchmark (a figure, not a test; issue #14): the peak RSS of `lakerec reconcile --level rows` on
// a large table, 6 columns, 100M rows a side by default. The data is built in a temp sandbox: the
// source extract (one Parquet file written by DuckDB COPY) and the Delta target (the writer, from
// the same generator with one partition changed), then one `lakerec` process reconciles them while
// /usr/bin/time records its peak RSS, and the sandbox's DuckDB spill folder is watched for its
// largest size. TMPDIR points the child into the sandbox, so DuckDB's temp_directory
// (openDuck's lakerec-duck-* folder) is inside it; the whole sandbox is deleted afterwards.
//
//   npm run bench -- --only reconcile-scale --merge [--scale-rows N]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DeltaWriter } from '../writer';
import { openDuck, sqlString } from '../engine/duck';
import { repoRoot } from '../engine/repo';
import { RECONCILE_MEMORY_LIMIT } from '../reconcile/reconcile';
import { rowsSql, schemaFor } from './reconcile';
import { wideShape } from './reconcile-tables';

export interface ScaleFigures {
  rows: number;
  /** narrow: the 6 columns of the 10M bench; wide: the 60 columns of reconcile-tables' wide shape. */
  shape: 'narrow' | 'wide';
  columns: number;
  /** Peak resident set size of the reconcile process (MB, /usr/bin/time's maximum RSS, else the sampled VmHWM). */
  peakRssMb: number;
  rssSource: 'time -v' | 'VmHWM';
  goalMb: number;
  /** Wall time of the reconcile process, start to exit (ms). */
  ms: number;
  exitCode: number | null;
  verdict: string | null;
  findings: string[];
  /** Where DuckDB spilled (inside the sandbox), and the largest size the folder reached (MB, sampled). */
  spillDir: string;
  spillPeakMb: number;
  memoryLimit: string;
  sourceMb: number;
  targetMb: number;
  setupMs: number;
  /** Free space before the build (GB). */
  freeGb: number;
  /** The data was kept (a work folder was given); otherwise the sandbox was deleted. */
  kept: boolean;
}

// The same rows and schema as the 10M bench (main/bench/reconcile.ts), at scale; or the wide shape.
const narrow = { schema: schemaFor('int'), sql: (n: number, divergent: boolean) => rowsSql(n, divergent), contract: 'version: 1\nname: scale\nkeys: [id]\npartitioning: { column: dt }\n' };

/** Bytes under a folder (regular files; a file that vanishes mid-walk counts 0). */
function sizeOf(dir: string): number {
  let n = 0;
  let entries;
  try { entries = readdirSync(dir, { withFileTypes: true }); } catch { return 0; }
  for (const e of entries) {
    const p = join(dir, e.name);
    try {
      if (e.isDirectory()) n += sizeOf(p);
      else if (e.isFile()) n += statSync(p).size;
    } catch { /* removed while walking */ }
  }
  return n;
}

function vmHwmKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

const mb = (bytes: number): number => Math.round(bytes / 1048576);

/**
 * `workDir`: build the data there (or reuse it when a previous run with the same size left it) and
 * keep it afterwards, for looking at one size several times; by default a fresh sandbox, deleted.
 */
export async function benchReconcileScale(opts: { rows?: number; say?: (s: string) => void; workDir?: string; shape?: 'narrow' | 'wide' } = {}): Promise<ScaleFigures> {
  const n = opts.rows ?? 100_000_000;
  const shape = opts.shape ?? 'narrow';
  const wide = shape === 'wide' ? wideShape(n) : null;
  const schema = wide ? wide.schema : narrow.schema;
  const sqlOf = (divergent: boolean): string => (wide ? wide.sql(divergent) : narrow.sql(n, divergent));
  const say = opts.say ?? ((): void => undefined);
  const cli = join(repoRoot(), 'dist', 'main', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/main/cli.js is missing: run `npm run build:node` first');
  const fs = statfsSync(tmpdir());
  const freeGb = (fs.bavail * fs.bsize) / 1073741824;
  // About 14 bytes a row a side in Parquet, and spill up to a few times the per-row tables.
  const needGb = (n * (wide ? 400 : 80)) / 1073741824 + 2;
  if (freeGb < needGb) throw new Error(`reconcile-scale: ${freeGb.toFixed(1)} GB free in ${tmpdir()}, ${needGb.toFixed(1)} GB needed for ${n.toLocaleString('en-US')} rows`);
  const keep = opts.workDir !== undefined;
  const dir = opts.workDir ?? mkdtempSync(join(tmpdir(), 'lakerec-bench-scale-'));
  mkdirSync(dir, { recursive: true });
  const removeData = (): void => { if (!keep) rmSync(dir, { recursive: true, force: true }); else rmSync(join(dir, 'tmp'), { recursive: true, force: true }); };
  // Gigabytes of data: an interrupted bench removes them too.
  const onSignal = (sig: NodeJS.Signals): void => { removeData(); process.exit(sig === 'SIGINT' ? 130 : 143); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const t0 = performance.now();
    const source = join(dir, 'source.parquet');
    const table = join(dir, 'table');
    say(`reconcile-scale: building ${n.toLocaleString('en-US')} rows a side in ${dir} (${freeGb.toFixed(0)} GB free)`);
    const built = join(dir, `built-${shape}-${n}`);
    if (!existsSync(built)) {
      rmSync(source, { force: true });
      rmSync(table, { recursive: true, force: true });
      const duck = await openDuck();
      try {
        await duck.conn.run(`COPY (${sqlOf(false)}) TO ${sqlString(source)} (FORMAT parquet)`);
        const w = await DeltaWriter.create(table, { schema, partitionColumns: ['dt'], duck, data: { sql: sqlOf(true) } });
        w.close();
      } finally {
        duck.close();
      }
      writeFileSync(built, '');
    }
    const contract = join(dir, 'contract.yaml');
    writeFileSync(contract, wide ? wide.contract : narrow.contract);
    const setupMs = performance.now() - t0;
    const sourceMb = mb(statSync(source).size);
    const targetMb = mb(sizeOf(table));
    say(`reconcile-scale: built in ${Math.round(setupMs / 1000)} s (source ${sourceMb} MB, target ${targetMb} MB); reconciling at rows level`);

    // The child's temp folder is the sandbox: DuckDB's spill folder (lakerec-duck-*) lands there.
    const childTmp = join(dir, 'tmp');
    rmSync(childTmp, { recursive: true, force: true });
    mkdirSync(childTmp);
    const timeOut = join(dir, 'time.txt');
    const useTime = existsSync('/usr/bin/time');
    const args = [cli, 'reconcile', source, table, '--contract', contract, '--level', 'rows', '--json'];
    const t1 = performance.now();
    const child = useTime
      ? spawn('/usr/bin/time', ['-f', '%M', '-o', timeOut, process.execPath, ...args], { env: { ...process.env, TMPDIR: childTmp }, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, args, { env: { ...process.env, TMPDIR: childTmp }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    let spillPeak = 0;
    let hwm = 0;
    let spillDir = join(childTmp, 'lakerec-duck-*');
    const sample = (): void => {
      spillPeak = Math.max(spillPeak, sizeOf(childTmp));
      const duckDirs = readdirSync(childTmp).filter((d) => d.startsWith('lakerec-duck-'));
      if (duckDirs.length) spillDir = join(childTmp, duckDirs[0]);
      // Without /usr/bin/time the child is node itself; with it, node is time's only child.
      const pid = child.pid;
      if (pid === undefined) return;
      if (!useTime) { hwm = Math.max(hwm, vmHwmKb(pid)); return; }
      try {
        for (const c of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) hwm = Math.max(hwm, vmHwmKb(Number(c)));
      } catch { /* exited */ }
    };
    const timer = setInterval(sample, 250);
    const exitCode = await new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    clearInterval(timer);
    const ms = performance.now() - t1;
    let peakKb = hwm;
    let rssSource: ScaleFigures['rssSource'] = 'VmHWM';
    if (useTime && existsSync(timeOut)) {
      const v = Number(readFileSync(timeOut, 'utf8').trim().split('\n').pop());
      if (Number.isFinite(v) && v > 0) { peakKb = Math.max(v, hwm); rssSource = 'time -v'; }
    }
    if (exitCode !== 0 && exitCode !== 1) throw new Error(`reconcile-scale: the reconcile exited ${exitCode}: ${err.trim().split('\n').pop() ?? ''}`);
    let verdict: string | null = null;
    let findings: string[] = [];
    try {
      const j = JSON.parse(out) as { verdict?: string; findings?: { mode: string }[] };
      verdict = j.verdict ?? null;
      findings = (j.findings ?? []).map((f) => f.mode);
    } catch { /* not JSON: leave the verdict unknown */ }
    return {
      rows: n, shape, columns: schema.fields.length, peakRssMb: Math.round(peakKb / 1024), rssSource, goalMb: 2048, ms: Math.round(ms), exitCode, verdict, findings,
      spillDir: spillDir.slice(dir.length + 1), spillPeakMb: mb(spillPeak), memoryLimit: RECONCILE_MEMORY_LIMIT, sourceMb, targetMb, setupMs: Math.round(setupMs), freeGb: Math.round(freeGb), kept: keep,
    };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    removeData();
  }
}

export function formatScaleFigures(f: ScaleFigures): string {
  const met = f.peakRssMb < f.goalMb ? 'met' : 'NOT met';
  return [
    `reconcile-scale: ${f.rows.toLocaleString('en-US')} rows x ${f.columns} columns a side, rows level, one lakerec process: peak RSS ${f.peakRssMb} MB (${f.rssSource}; goal < ${f.goalMb} MB, ${met})`,
    `  ${Math.round(f.ms / 1000)} s start to exit, exit ${f.exitCode}, ${f.verdict ?? '?'} [${f.findings.join(', ')}]; DuckDB memory limit ${f.memoryLimit}, spilled up to ${f.spillPeakMb} MB to <sandbox>/${f.spillDir}`,
    `  source ${f.sourceMb} MB Parquet, target ${f.targetMb} MB Delta; built in ${Math.round(f.setupMs / 1000)} s; ${f.kept ? 'data kept in --scale-dir' : 'sandbox deleted'}`,
  ].join('\n');
}
