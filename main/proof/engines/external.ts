// The user's own engines, when present: Python with delta-rs (`deltalake`) beside polars, pyarrow
// or pandas, and Spark with Delta Lake (delta-spark). Discovered at run time by asking the
// programs on PATH (a probe with a time limit), offered when present, refused when absent with
// what was looked for. Each runs one small script (lakerec's own) in a subprocess
// with a time limit, given only paths inside the proof's sandbox, with the sandbox as its
// working folder and HOME.
//
// None of these programs is installed on the machines lakerec is built on: discovery and refusal
// are tested (with a stub python3 on a fake PATH); the scripts have not been run against a real
// delta-rs or Spark.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import * as A from 'apache-arrow';
import { LakerecError } from '../../../shared/errors';
import { throwIfCancelled, type JobContext } from '../../../shared/jobs';
import { buildTable, tableRows } from '../cells';
import { readParquetArrow, writeParquetArrow } from './arrow';
import { openSnapshot, withDeltaFields } from './common';
import type { Engine, EngineRead, EngineWrite } from './types';

/** What the probe found: a program's path and the Python modules it imports, with versions. */
export interface Discovery {
  python: { path: string; version: string | null; modules: Record<string, string | null> } | null;
  spark: { path: string; deltaSpark: string | null } | null;
  /** What was looked for, one line each (shown when an engine is refused). */
  lookedFor: string[];
}

export const PY_MODULES = ['deltalake', 'polars', 'pyarrow', 'pandas', 'delta'] as const;

const PROBE = `import importlib, json, sys
out = {"python": sys.version.split()[0], "modules": {}}
for m in ${JSON.stringify(PY_MODULES)}:
    try:
        mod = importlib.import_module(m)
        out["modules"][m] = str(getattr(mod, "__version__", "") or "present")
    except Exception:
        out["modules"][m] = None
print(json.dumps(out))
`;

/** The first executable called `name` on PATH, or null. */
export function onPath(name: string, env: Record<string, string | undefined> = process.env): string | null {
  for (const d of (env.PATH ?? '').split(delimiter)) {
    if (!d) continue;
    const p = join(d, name);
    if (existsSync(p)) return p;
  }
  return null;
}

/** Asks the programs on PATH what they have. Each probe has a time limit; a probe that fails counts as absent. */
export function discoverExternal(env: Record<string, string | undefined> = process.env, timeoutMs = 10_000): Discovery {
  const lookedFor = [
    `python3 on PATH, importing ${PY_MODULES.filter((m) => m !== 'delta').join(', ')}`,
    'spark-submit or pyspark on PATH, with delta-spark (the Python module "delta")',
  ];
  let python: Discovery['python'] = null;
  const py = onPath('python3', env);
  if (py) {
    const r = spawnSync(py, ['-c', PROBE], { encoding: 'utf8', timeout: timeoutMs, env: { PATH: env.PATH ?? '' } });
    try {
      const j = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as { python?: string; modules?: Record<string, string | null> };
      python = { path: py, version: j.python ?? null, modules: Object.fromEntries(PY_MODULES.map((m) => [m, j.modules?.[m] ?? null])) };
    } catch {
      python = { path: py, version: null, modules: Object.fromEntries(PY_MODULES.map((m) => [m, null])) };
    }
  }
  const sparkPath = onPath('spark-submit', env) ?? onPath('pyspark', env);
  const spark = sparkPath ? { path: sparkPath, deltaSpark: python?.modules.delta ?? null } : null;
  return { python, spark, lookedFor };
}

export interface ExternalSpec {
  name: string;
  /** What the engine needs, as Python modules (or spark). */
  needs: string[];
  label: string;
}

/**
 * The external engines. pandas alone is not offered as an engine: pandas reads Parquet only
 * through pyarrow or fastparquet, and writes no Delta at all; with deltalake and pyarrow present
 * it is offered (pandas frames through delta-rs), which is the seed's pandas.
 */
export const EXTERNAL: readonly ExternalSpec[] = [
  { name: 'py-deltalake', needs: ['deltalake', 'pyarrow'], label: 'delta-rs (Python deltalake) with pyarrow' },
  { name: 'py-polars', needs: ['deltalake', 'polars', 'pyarrow'], label: 'Python polars through delta-rs' },
  { name: 'py-pandas', needs: ['deltalake', 'pandas', 'pyarrow'], label: 'pandas (Arrow-backed dtypes) through delta-rs' },
  { name: 'spark', needs: ['spark', 'delta'], label: 'Spark with Delta Lake (delta-spark)' },
];

export function missingFor(spec: ExternalSpec, d: Discovery): string[] {
  const missing: string[] = [];
  for (const n of spec.needs) {
    if (n === 'spark') { if (!d.spark) missing.push('spark-submit or pyspark on PATH'); continue; }
    if (!d.python) { if (!missing.includes('python3 on PATH')) missing.push('python3 on PATH'); continue; }
    if (!d.python.modules[n]) missing.push(`the Python module "${n}" (${d.python.path})`);
  }
  return missing;
}

/** One line: why an external engine is refused here. */
export function refusalLine(spec: ExternalSpec, d: Discovery): string {
  const missing = missingFor(spec, d);
  const pandasNote = spec.name === 'py-pandas' && d.python?.modules.pandas && !d.python.modules.pyarrow
    ? '; pandas is present, but without pyarrow it reads no Parquet and without deltalake it writes no Delta, so pandas alone cannot be a proof engine'
    : '';
  return `the ${spec.name} engine (${spec.label}) is not available here: missing ${missing.join(', ')}${pandasNote}; looked for ${d.lookedFor.join('; ')}`;
}

const SCRIPT_DIR = 'lakerec-engine';

/** The script each engine runs: `read TABLE OUT.arrow` or `write IN.parquet TABLE ENGINEINFO`. */
export function scriptFor(name: string): string {
  if (name === 'spark') {
    return `import sys
from pyspark.sql import SparkSession
from delta import configure_spark_with_delta_pip
b = (SparkSession.builder.appName("lakerec-proof")
     .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
     .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
     .config("spark.sql.session.timeZone", "UTC")
     .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
     .config("spark.databricks.delta.commitInfo.userMetadata", sys.argv[-1] if sys.argv[1] == "write" else ""))
spark = configure_spark_with_delta_pip(b).getOrCreate()
if sys.argv[1] == "read":
    df = spark.read.format("delta").load(sys.argv[2])
    df.write.mode("overwrite").parquet(sys.argv[3])
else:
    spark.read.parquet(sys.argv[2]).write.format("delta").save(sys.argv[3])
`;
  }
  const frame = name === 'py-polars'
    ? { read: 'import polars as pl\n    t = pl.read_delta(sys.argv[2]).to_arrow()', write: 'import polars as pl\n    pl.read_parquet(sys.argv[2]).write_delta(sys.argv[3], delta_write_options={"commit_properties": CommitProperties(custom_metadata={"engineInfo": sys.argv[4]})})' }
    : name === 'py-pandas'
      ? { read: 'import pandas as pd\n    t = pa.Table.from_pandas(DeltaTable(sys.argv[2]).to_pandas(types_mapper=pd.ArrowDtype), preserve_index=False)', write: 'import pandas as pd\n    src = pq.read_table(sys.argv[2])\n    df = src.to_pandas(types_mapper=pd.ArrowDtype)\n    write_deltalake(sys.argv[3], pa.Table.from_pandas(df, schema=src.schema, preserve_index=False), commit_properties=CommitProperties(custom_metadata={"engineInfo": sys.argv[4]}))' }
      : { read: 't = DeltaTable(sys.argv[2]).to_pyarrow_table()', write: 'write_deltalake(sys.argv[3], pq.read_table(sys.argv[2]), commit_properties=CommitProperties(custom_metadata={"engineInfo": sys.argv[4]}))' };
  return `import sys
import pyarrow as pa, pyarrow.parquet as pq
from deltalake import DeltaTable, write_deltalake, CommitProperties
if sys.argv[1] == "read":
    ${frame.read}
    pq.write_table(t, sys.argv[3])
else:
    ${frame.write}
`;
}

/** Runs a program with a time limit in the sandbox folder; a non-zero exit or a timeout is one line. */
export function runLimited(cmd: string, args: string[], cwd: string, timeoutMs: number, ctx?: JobContext): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, TMPDIR: cwd }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => { err = (err + c.toString('utf8')).slice(-2000); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new LakerecError('io_error', `${cmd} did not finish within ${timeoutMs / 1000} s and was stopped`)); }, timeoutMs);
    const onAbort = (): void => { child.kill('SIGKILL'); };
    ctx?.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => { clearTimeout(timer); reject(new LakerecError('io_error', `${cmd} could not start: ${e.message}`)); });
    child.on('exit', (code) => {
      clearTimeout(timer);
      ctx?.signal?.removeEventListener('abort', onAbort);
      if (ctx?.signal?.aborted) reject(new LakerecError('cancelled', 'cancelled'));
      else if (code === 0) resolve();
      else reject(new LakerecError('io_error', `${cmd} exited ${code}: ${err.trim().split('\n').pop() ?? ''}`));
    });
  });
}

export function makeExternalEngine(spec: ExternalSpec, discover: () => Discovery = () => discoverExternal(), timeoutMs = 300_000): Engine {
  let cached: Discovery | null = null;
  const d = (): Discovery => (cached ??= discover());
  const program = (): string => {
    const x = d();
    if (spec.name === 'spark') return x.spark!.path;
    return x.python!.path;
  };
  const script = (sandbox: string): string => {
    const dir = join(sandbox, SCRIPT_DIR);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${spec.name}.py`);
    writeFileSync(path, scriptFor(spec.name));
    return path;
  };
  const engine: Engine = {
    name: spec.name,
    description: `${spec.label}: the user's own engine, run as a subprocess in the sandbox`,
    // Spark names itself in commitInfo.engineInfo (`Apache-Spark/3.5.1 Delta-Lake/3.2.0`); the
    // delta-rs scripts put lakerec's name there through the commit's custom metadata.
    engineInfoPrefix: spec.name === 'spark' ? 'Apache-Spark/' : `lakerec-${spec.name}/`,
    readerFeatures: new Set(['timestampNtz', 'deletionVectors', 'v2Checkpoint', 'vacuumProtocolCheck', 'columnMapping']),
    availability: () => {
      const missing = missingFor(spec, d());
      return missing.length ? { available: false, reason: refusalLine(spec, d()) } : { available: true };
    },
    async write(root: string, table: A.Table, ctx?: JobContext): Promise<EngineWrite> {
      throwIfCancelled(ctx);
      const a = engine.availability!();
      if (!a.available) throw new LakerecError('usage', a.reason, { engine: spec.name });
      const sandbox = dirname(root);
      const input = `${root}.input.parquet`;
      writeFileSync(input, writeParquetArrow(table));
      await runLimited(program(), [script(sandbox), 'write', input, root, `lakerec-${spec.name}/${d().python?.modules[spec.needs[0]] ?? ''}`], sandbox, timeoutMs, ctx);
      const { snapshot } = await openSnapshot(engine, root);
      return { version: snapshot.version, files: snapshot.files.length, rows: table.numRows, schema: snapshot.schema };
    },
    async read(root: string, ctx?: JobContext): Promise<EngineRead> {
      throwIfCancelled(ctx);
      const a = engine.availability!();
      if (!a.available) throw new LakerecError('usage', a.reason, { engine: spec.name });
      const { snapshot, featuresChecked } = await openSnapshot(engine, root);
      const sandbox = dirname(root);
      const out = `${root}.read.parquet`;
      await runLimited(program(), [script(sandbox), 'read', root, out], sandbox, timeoutMs, ctx);
      // What the engine read, as it wrote it (its own Parquet), read back by parquet-wasm. Spark
      // writes a folder of part files.
      const files = statSync(out).isDirectory() ? readdirSync(out).filter((f) => f.endsWith('.parquet')).sort().map((f) => join(out, f)) : [out];
      const parts = files.map((f) => readParquetArrow(new Uint8Array(readFileSync(f))));
      if (!parts.length) throw new LakerecError('data_file_missing', `${spec.name} wrote no Parquet file of what it read`);
      const t = parts.length === 1 ? parts[0] : new A.Table(parts.flatMap((x) => x.batches));
      const schema = withDeltaFields(snapshot.schema, new Map(t.schema.fields.map((f) => [f.name, f.type])));
      const table = buildTable(schema, tableRows(t.select(schema.fields.map((f) => f.name))));
      return { table, schema: snapshot.schema, protocol: snapshot.protocol, featuresChecked, version: snapshot.version };
    },
  };
  return engine;
}

/** The external engines, discovered once per process (lazily: nothing is probed until asked). */
let discovered: Discovery | null = null;
const discoverOnce = (): Discovery => (discovered ??= discoverExternal());
export const externalEngines: Engine[] = EXTERNAL.map((s) => makeExternalEngine(s, discoverOnce));
