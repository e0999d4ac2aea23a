// Issue #24, the table shapes beyond the orders lake: a wide table (60 columns: decimal,
// timestamp, timestamp_ntz, struct, array, map among them), a table of many small files (200
// partitions, 100 files each), and a table with deletion vectors on 30% of its files. Each is
// built here (the source extract as one Parquet file written by DuckDB COPY, the target a Delta
// table through the writer, one partition's rows changed in the target), then reconciled at every
// level by a fresh `lakerec reconcile` process, start to exit, beside the query a data engineer
// writes by hand in DuckDB over the same files, in a fresh Node process, in the same run. Median
// of the rounds; CPU time by /usr/bin/time.
//
//   npm run bench -- --only reconcile-tables --merge            (wide 2M, files 2M, dv 10M rows)
//   LAKEREC_BENCH_TABLES=wide,files,dv   which shapes
//   LAKEREC_BENCH_TABLES_DIR=D           build into D and keep it (reused at the same size)
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { StructField, StructType } from '../../shared/delta';
import { DeltaWriter } from '../writer';
import { openTable } from '../delta/open';
import { readDeletionVector } from '../delta/dv';
import { localPathOf } from '../delta/scan';
import { openDuck, sqlIdent, sqlString } from '../engine/duck';
import { repoRoot } from '../engine/repo';
import { HAND_SCRIPT, medianRun, phasesOf, timedSpawn, type ShapeLevel } from './reconcile-shapes';

export type TableShapeId = 'wide' | 'files' | 'dv';

export interface TableShape {
  id: TableShapeId;
  /** What the table is: columns, partitions, files, deletion vectors (the product's contract for this bench). */
  description: string;
  rows: number;
  columns: number;
  partitions: number;
  /** Active data files of the target, and how many carry a deletion vector. */
  files: number;
  filesWithDv: number;
  /** Rows the deletion vectors remove from the target. */
  deletedRows: number;
  /** Building the source and the target (ms). */
  buildMs: number;
  /** What the reconcile said at rows level (the verdict and the findings' modes). */
  verdict: string | null;
  findings: string[];
  levels: ShapeLevel[];
  /** The load average (1 min) when this shape's runs started and ended: the machine is shared. */
  loadAverage: number;
  loadAverageEnd: number;
  /** When this shape was measured (a --merge keeps shapes of earlier runs). */
  measuredAt: string;
}

export interface TablesFigures {
  rounds: number;
  stat: 'median';
  loadAverage: number;
  loadAverageEnd: number;
  shapes: TableShape[];
}

const field = (name: string, type: StructField['type'], nullable = true): StructField => ({ name, type, nullable, metadata: {} });

/** The divergence every shape carries: in the third partition, 1 row in 100 of one text column changed in the target. */
const CHANGED = (i: string, dt: string) => `(${dt} = 2 AND ${i} % 100 = 2)`;

export interface Built {
  schema: StructType;
  /** SQL of the rows: source (agreeing) or target (divergent). */
  sql: (divergent: boolean) => string;
  partitions: number;
  /** Columns hashed by hand (all but the key, the partition and the floats), and the floats. */
  hashCols: string[];
  floats: string[];
  contract: string;
}

// ---- the wide shape: 60 columns ----
/** The wide table (also reconcile-scale's wide shape): its schema, its rows (source or divergent target) and its contract. */
export function wideShape(n: number): Built {
  const f: StructField[] = [field('id', 'long', false), field('dt', 'date')];
  const sel: string[] = ['i::BIGINT AS id', `DATE '2026-08-10' + (i % 6)::INTEGER AS dt`];
  for (let k = 0; k < 10; k++) { f.push(field(`l${k}`, 'long')); sel.push(`((i * ${k + 7}) % 1000003)::BIGINT AS l${k}`); }
  for (let k = 0; k < 10; k++) { f.push(field(`n${k}`, 'integer')); sel.push(`((i + ${k}) % 10007)::INTEGER AS n${k}`); }
  for (let k = 0; k < 8; k++) { f.push(field(`d${k}`, 'decimal(18,2)')); sel.push(`((i % 100000) * 0.01 + ${k})::DECIMAL(18,2) AS d${k}`); }
  for (let k = 0; k < 8; k++) {
    f.push(field(`s${k}`, 'string'));
    sel.push(k === 0 ? `CASE WHEN ${'$DIV'} AND ${CHANGED('i', '(i % 6)')} THEN 'changed-' || i ELSE 'cust-' || (i % 99991) END AS s0` : `'v${k}-' || ((i * ${k}) % 5003) AS s${k}`);
  }
  for (let k = 0; k < 2; k++) { f.push(field(`f${k}`, 'double')); sel.push(`((i % 100000) * 0.37 + ${k}.25)::DOUBLE AS f${k}`); }
  for (let k = 0; k < 4; k++) { f.push(field(`t${k}`, 'timestamp')); sel.push(`TIMESTAMPTZ '2026-08-10 00:00:00+00' + to_microseconds((i % 6) * 86400000000 + ((i + ${k}) % 86400) * 1000000) AS t${k}`); }
  for (let k = 0; k < 4; k++) { f.push(field(`z${k}`, 'timestamp_ntz')); sel.push(`TIMESTAMP '2026-08-10 00:00:00' + to_microseconds(((i * ${k + 3}) % 86400) * 1000000) AS z${k}`); }
  for (let k = 0; k < 4; k++) { f.push(field(`a${k}`, 'date')); sel.push(`DATE '2020-01-01' + ((i + ${k}) % 3000)::INTEGER AS a${k}`); }
  for (let k = 0; k < 2; k++) { f.push(field(`b${k}`, 'boolean')); sel.push(`(i % ${k + 2} = 0) AS b${k}`); }
  for (let k = 0; k < 2; k++) {
    f.push(field(`st${k}`, { type: 'struct', fields: [field('x', 'long'), field('y', 'string')] }));
    sel.push(`{'x': (i % 777)::BIGINT, 'y': 'y' || ((i + ${k}) % 97)} AS st${k}`);
  }
  for (let k = 0; k < 2; k++) {
    f.push(field(`ar${k}`, { type: 'array', elementType: 'integer', containsNull: true }));
    sel.push(`[(i % 11)::INTEGER, ((i + ${k}) % 13)::INTEGER] AS ar${k}`);
  }
  for (let k = 0; k < 2; k++) {
    f.push(field(`mp${k}`, { type: 'map', keyType: 'string', valueType: 'long', valueContainsNull: true }));
    sel.push(`MAP {'k' || (i % 3): (i % 1000)::BIGINT} AS mp${k}`);
  }
  const schema: StructType = { type: 'struct', fields: f };
  const sql = (div: boolean) => `SELECT ${sel.join(', ').replace('$DIV', div ? 'true' : 'false')} FROM range(${n}) r(i)`;
  const floats = ['f0', 'f1'];
  return {
    schema, sql, partitions: 6, floats,
    hashCols: f.map((x) => x.name).filter((c) => c !== 'id' && c !== 'dt' && !floats.includes(c)),
    contract: `version: 1\nname: wide\nkeys: [id]\npartitioning: { column: dt }\ncolumns:\n${floats.map((c) => `  ${c}: { float: { tolerance: 1.0e-9 } }`).join('\n')}\n`,
  };
}

// ---- the narrow 6-column bench rows, over P partitions (many files; deletion vectors) ----
function narrowShape(n: number, partitions: number, name: string): Built {
  const schema: StructType = {
    type: 'struct',
    fields: [field('id', 'long', false), field('qty', 'integer'), field('amount', 'decimal(18,2)'), field('customer', 'string'), field('price', 'double'), field('dt', 'date'), field('ts', 'timestamp')],
  };
  const p = `(i % ${partitions})`;
  const sql = (div: boolean) => `SELECT i::BIGINT AS id, (i % 1000)::INTEGER AS qty, (i * 0.01)::DECIMAL(18,2) AS amount,
    CASE WHEN ${div ? 'true' : 'false'} AND ${CHANGED('i', p)} THEN 'changed-' || i ELSE 'cust-' || (i % 99991) END AS customer,
    ((i % 10000) * 0.25 + 0.1)::DOUBLE AS price, DATE '2026-01-01' + ${p}::INTEGER AS dt,
    TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_microseconds(${p} * 86400000000 + (i % 86400) * 1000000) AS ts FROM range(${n}) r(i)`;
  return {
    schema, sql, partitions, floats: ['price'], hashCols: ['qty', 'amount', 'customer', 'ts'],
    contract: `version: 1\nname: ${name}\nkeys: [id]\npartitioning: { column: dt }\ncolumns:\n  price: { float: { tolerance: 1.0e-9 } }\n`,
  };
}

/** The hand-written queries: rows (full outer join on the key), checksum (sum(hash) and the floats' sums per partition), counts. */
function handSql(b: Built, src: string, tgt: string, level: ShapeLevel['level']): string {
  const hc = b.hashCols.map(sqlIdent).join(', ');
  if (level === 'counts') return `SELECT 's' AS side, dt AS p, count(*) AS n FROM ${src} GROUP BY ALL UNION ALL SELECT 't', dt, count(*) FROM ${tgt} GROUP BY ALL`;
  if (level === 'checksum') {
    const fs = b.floats.map((c) => `, sum(${sqlIdent(c)})`).join('');
    return `SELECT 's' AS side, dt AS p, count(*) AS n, sum(hash(${hc})) AS h${fs} FROM ${src} GROUP BY ALL
      UNION ALL SELECT 't', dt, count(*), sum(hash(${hc}))${fs} FROM ${tgt} GROUP BY ALL`;
  }
  const fsel = b.floats.map((c, i) => `, ${sqlIdent(c)} AS f${i}`).join('');
  const fcmp = b.floats.map((_c, i) => ` OR NOT coalesce(abs(s.f${i} - t.f${i}) <= 1e-9, s.f${i} IS NOT DISTINCT FROM t.f${i})`).join('');
  return `SELECT count(*) FILTER (WHERE s.id IS NULL) AS extra, count(*) FILTER (WHERE t.id IS NULL) AS missing,
      count(*) FILTER (WHERE s.p IS DISTINCT FROM t.p) AS moved, count(*) FILTER (WHERE s.h <> t.h${fcmp}) AS changed
    FROM (SELECT id, dt AS p, hash(${hc}) AS h${fsel} FROM ${src}) s
    FULL OUTER JOIN (SELECT id, dt AS p, hash(${hc}) AS h${fsel} FROM ${tgt}) t USING (id)`;
}

const DESCRIPTIONS: Record<TableShapeId, string> = {
  wide: '60 columns (10 bigint, 10 int, 8 decimal(18,2), 8 string, 2 double with a tolerance, 4 timestamp, 4 timestamp_ntz, 4 date, 2 boolean, 2 struct, 2 array, 2 map, the key and the date partition), 6 partitions, one file per partition',
  files: '7 columns (bigint key, int, decimal, string, double with a tolerance, timestamp, date partition), 200 partitions, 100 files each from 100 appends (20,000 files), checkpoints every 10 versions',
  dv: '7 columns as above, 6 partitions, 10 appends (60 files); one DELETE marks 1 row in 5 of the first 3 appends with deletion vectors (30% of the files), the source holds the rows the table keeps',
};

export function tableShapeSizes(quick: boolean): Record<TableShapeId, number> {
  return quick ? { wide: 200_000, files: 200_000, dv: 1_000_000 } : { wide: 2_000_000, files: 2_000_000, dv: 10_000_000 };
}

async function build(id: TableShapeId, n: number, dir: string, say: (s: string) => void): Promise<{ b: Built; source: string; table: string; contract: string; ms: number }> {
  const b = id === 'wide' ? wideShape(n) : id === 'files' ? narrowShape(n, 200, 'many_files') : narrowShape(n, 6, 'deletion_vectors');
  const source = join(dir, 'source.parquet');
  const table = join(dir, 'table');
  const contract = join(dir, 'contract.yaml');
  const marker = join(dir, 'bench-rows.txt');
  const t0 = performance.now();
  if (!(existsSync(marker) && readFileSync(marker, 'utf8') === String(n))) {
    rmSync(source, { force: true });
    rmSync(table, { recursive: true, force: true });
    say(`reconcile-tables: building ${id} at ${n.toLocaleString('en-US')} rows into ${dir}`);
    const duck = await openDuck({});
    try {
      // The deletion vectors' rows: 1 in 5 of the first 3 of 10 appends (the source leaves them out).
      const deleted = `(id < ${Math.floor(n * 0.3)} AND id % 5 = 0)`;
      const srcSql = id === 'dv' ? `SELECT * FROM (${b.sql(false)}) WHERE NOT ${deleted}` : b.sql(false);
      await duck.conn.run(`COPY (${srcSql}) TO ${sqlString(source)} (FORMAT parquet)`);
      if (id === 'wide') {
        const w = await DeltaWriter.create(table, { schema: b.schema, partitionColumns: ['dt'], duck, data: { sql: b.sql(true) } });
        w.close();
      } else {
        const batches = id === 'files' ? 100 : 10;
        const configuration: Record<string, string> = { 'delta.checkpointInterval': '10' };
        if (id === 'dv') configuration['delta.enableDeletionVectors'] = 'true';
        const w = await DeltaWriter.create(table, { schema: b.schema, partitionColumns: ['dt'], duck, configuration });
        try {
          for (let k = 0; k < batches; k++) {
            const lo = Math.floor((n * k) / batches);
            const hi = Math.floor((n * (k + 1)) / batches);
            await w.append({ sql: `SELECT * FROM (${b.sql(true)}) WHERE id >= ${lo} AND id < ${hi}` });
            if (id === 'files' && k % 10 === 9) say(`reconcile-tables: files: ${k + 1} of ${batches} appends`);
          }
          if (id === 'dv') await w.deleteWhere(deleted);
        } finally {
          w.close();
        }
      }
    } finally {
      duck.close();
    }
    writeFileSync(contract, b.contract);
    writeFileSync(marker, String(n));
  }
  return { b, source, table, contract, ms: Math.round(performance.now() - t0) };
}

export async function benchReconcileTables(opts: { sizes: Record<TableShapeId, number>; only?: TableShapeId[]; rounds?: number; say?: (s: string) => void }): Promise<TablesFigures> {
  const rounds = opts.rounds ?? 3;
  const say = opts.say ?? (() => {});
  const root = repoRoot();
  const cli = join(root, 'dist', 'main', 'cli.js');
  if (!existsSync(cli)) throw new Error('reconcile-tables: run `npm run build:node` first (the bench runs the built CLI)');
  const keep = process.env.LAKEREC_BENCH_TABLES_DIR ?? null;
  const base = keep ?? mkdtempSync(join(tmpdir(), 'lakerec-bench-tables-'));
  const loadAverage = Math.round(loadavg()[0] * 100) / 100;
  const duckPath = join(root, 'node_modules', '@duckdb', 'node-api');
  const shapes: TableShape[] = [];
  try {
    for (const id of opts.only ?? (['wide', 'files', 'dv'] as const)) {
      const n = opts.sizes[id];
      const dir = join(base, id);
      mkdirSync(dir, { recursive: true });
      const { b, source, table, contract, ms: buildMs } = await build(id, n, dir, say);
      const snap = await (await openTable(table)).snapshot();
      // The target as a data engineer reads it by hand: the active files (a list, in a file: 20,000
      // paths are longer than an environment variable), the deletion vectors' rows left out by
      // (file, row number) from a table of positions decoded here (the decoding is not timed).
      const listed = `[${snap.files.map((f) => sqlString(localPathOf(snap, f))).join(', ')}]`;
      const withDv = snap.files.filter((f) => f.add.deletionVector);
      let tgt = `read_parquet(${listed})`;
      let deletedRows = 0;
      if (withDv.length) {
        const posFile = join(dir, 'dv-positions.csv');
        const lines = ['file,pos'];
        for (const f of withDv) {
          const pos = await readDeletionVector(f.add.deletionVector!, table);
          deletedRows += pos.length;
          for (const p of pos) lines.push(`${localPathOf(snap, f)},${p}`);
        }
        writeFileSync(posFile, lines.join('\n') + '\n');
        const posParquet = join(dir, 'dv-positions.parquet');
        const d = await openDuck({});
        try { await d.conn.run(`COPY (SELECT file, pos::BIGINT AS pos FROM read_csv(${sqlString(posFile)}, header = true, columns = {'file': 'VARCHAR', 'pos': 'BIGINT'})) TO ${sqlString(posParquet)} (FORMAT parquet)`); } finally { d.close(); }
        tgt = `(SELECT * EXCLUDE (filename, file_row_number) FROM read_parquet(${listed}, filename = true, file_row_number = true) r
          ANTI JOIN read_parquet(${sqlString(posParquet)}) x ON r.filename = x.file AND r.file_row_number = x.pos)`;
      }
      const src = `read_parquet(${sqlString(source)})`;
      const shapeLoad = Math.round(loadavg()[0] * 100) / 100;
      const levels: ShapeLevel[] = [];
      let verdict: string | null = null;
      let findings: string[] = [];
      const cpuFile = join(dir, 'bench-cpu.txt');
      for (const level of ['rows', 'checksum', 'counts'] as const) {
        let out = '';
        const ours = medianRun(rounds, () => {
          const p = timedSpawn([cli, 'reconcile', source, table, '--contract', contract, '--level', level, '--json'], { ...process.env, LAKEREC_PROFILE: '1' }, cpuFile);
          if (p.status !== 0 && p.status !== 1) throw new Error(`reconcile ${id} ${level} failed (exit ${p.status}): ${p.stderr.trim().split('\n').pop()}`);
          out = p.stdout;
          return p;
        });
        if (level === 'rows') {
          try {
            const j = JSON.parse(out) as { verdict?: string; findings?: { mode: string }[] };
            verdict = j.verdict ?? null;
            findings = (j.findings ?? []).map((x) => x.mode);
          } catch { /* not JSON: the verdict stays unknown */ }
        }
        const sqlFile = join(dir, `hand-${level}.sql`);
        writeFileSync(sqlFile, handSql(b, src, tgt, level));
        const hand = medianRun(rounds, () => {
          const p = timedSpawn(['-e', HAND_SCRIPT], { ...process.env, DUCK: duckPath, SQL_FILE: sqlFile }, cpuFile);
          if (p.status !== 0) throw new Error(`hand-written ${id} ${level} query failed: ${p.stderr.trim()}`);
          return p;
        });
        const r2 = (x: number) => Math.round(x * 100) / 100;
        levels.push({
          contract: id, level, ms: ours.ms, handMs: hand.ms, ratio: r2(ours.ms / hand.ms), cpuMs: ours.cpuMs, handCpuMs: hand.cpuMs,
          ratioCpu: ours.cpuMs !== null && hand.cpuMs ? r2(ours.cpuMs / hand.cpuMs) : null, goal: level === 'rows' ? 2 : level === 'checksum' ? 1.5 : null, phases: phasesOf(ours.stderr),
        });
        say(`reconcile-tables: ${id} ${level}: lakerec ${ours.ms} ms (CPU ${ours.cpuMs}), by hand ${hand.ms} ms (CPU ${hand.cpuMs})`);
      }
      shapes.push({
        id, description: DESCRIPTIONS[id], rows: n, columns: b.schema.fields.length, partitions: b.partitions, files: snap.files.length, filesWithDv: withDv.length,
        deletedRows, buildMs, verdict, findings, levels, loadAverage: shapeLoad, loadAverageEnd: Math.round(loadavg()[0] * 100) / 100, measuredAt: new Date().toISOString(),
      });
    }
  } finally {
    if (!keep) rmSync(base, { recursive: true, force: true });
  }
  return { rounds, stat: 'median', loadAverage, loadAverageEnd: Math.round(loadavg()[0] * 100) / 100, shapes };
}

export function formatTablesFigures(f: TablesFigures): string {
  const lines = [`reconcile tables: median of ${f.rounds}, load average ${f.loadAverage} at the start, ${f.loadAverageEnd} at the end`];
  for (const s of f.shapes) {
    lines.push(`  ${s.id}: ${s.rows.toLocaleString('en-US')} rows, ${s.columns} columns, ${s.partitions} partitions, ${s.files} files (${s.filesWithDv} with deletion vectors, ${s.deletedRows} rows deleted); ${s.verdict ?? '?'} [${s.findings.join(', ')}]; load ${s.loadAverage} to ${s.loadAverageEnd}`);
    for (const l of s.levels) {
      const cpu = l.ratioCpu === null ? '' : `; CPU ${l.cpuMs} ms vs ${l.handCpuMs} ms, ${l.ratioCpu}x`;
      lines.push(`    ${l.level.padEnd(9)} lakerec ${String(l.ms).padStart(6)} ms   hand-written DuckDB ${String(l.handMs).padStart(6)} ms   ${l.ratio}x${l.goal === null ? '' : ` (goal <= ${l.goal}x)`}${cpu}`);
    }
  }
  return lines.join('\n');
}
