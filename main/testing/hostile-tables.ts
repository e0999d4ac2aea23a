// The hostile corpus (issue #17): Delta tables a careful adversary would hand the reader, built
// by this script into a temp folder (nothing binary is committed). Every case names the class it
// belongs to, where the refusal surfaces (open, snapshot, scan) and the code and words it must
// carry. Files outside the tables hold SECRET: no message may ever contain it.
// Used by main/delta/hostile.test.ts; reusable by any test that runs these through a command.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import type { ErrorCode } from '../../shared/errors';
import { sqlString, type Duck } from '../engine/duck';
import { DV_MAGIC } from '../delta/dv';
import type { ReadLimits } from '../storage';
import { z85Encode } from '../delta/z85';

export const SECRET = 'Qz7!hostile-secret-7f3a';

/** Ways a message could carry bytes of an outside file: the text, or 4 of its bytes read as a number (the old DV size bug). */
export function leaksSecret(text: string): boolean {
  if (text.includes(SECRET) || text.includes(SECRET.slice(0, 8))) return true;
  const b = Buffer.from(SECRET.repeat(2));
  for (let i = 0; i + 4 <= SECRET.length + 4; i++) {
    if (text.includes(String(b.readUInt32BE(i))) || text.includes(String(b.readUInt32LE(i)))) return true;
  }
  return false;
}

export type HostileClass = 'outside-root' | 'special-file' | 'size' | 'version' | 'deletion-vector' | 'json' | 'metadata';
/** Where the refusal surfaces: DeltaTable.open, table.snapshot(), the scan (registerSnapshotView); 'none': read fine. */
export type HostileStage = 'open' | 'snapshot' | 'scan' | 'none';

export interface HostileCase {
  name: string;
  klass: HostileClass;
  root: string;
  stage: HostileStage;
  code: ErrorCode | null;
  /** Text the refusal must contain (the path it names, the knob that raises a limit). */
  mentions: string[];
  /** Options to open it with (the case is about them: a limit, the outside-paths escape). */
  open?: { allowOutsidePaths?: boolean; limits?: Partial<ReadLimits> };
  /** Environment for the CLI equivalent of `open.limits`. */
  env?: Record<string, string>;
  /** A warning the table must carry (stage 'none'). */
  warning?: string;
}

export interface HostileCorpus {
  dir: string;
  /** A folder outside every table, holding SECRET in each file. */
  outside: string;
  cases: HostileCase[];
  /** Stops what the corpus keeps running (the listening sockets of the socket cases). */
  close(): Promise<void>;
}

const pad = (v: number | string): string => String(v).padStart(20, '0');
const field = (name: string, type: unknown = 'long'): object => ({ name, type, nullable: true, metadata: {} });
const protocol = (r = 1, w = 2, features?: string[]): object => ({
  protocol: { minReaderVersion: r, minWriterVersion: w, ...(features ? { readerFeatures: features, writerFeatures: features } : {}) },
});
const metaData = (fields: object[], partitionColumns: string[] = []): object => ({
  metaData: { id: 'hostile', format: { provider: 'parquet', options: {} }, schemaString: JSON.stringify({ type: 'struct', fields }), partitionColumns, configuration: {}, createdTime: 1 },
});
const info = (ts = 1): object => ({ commitInfo: { timestamp: ts, operation: 'WRITE' } });
const add = (path: string, rows: number, extra: object = {}): object => ({
  add: { path, partitionValues: {}, size: 1, modificationTime: 1, dataChange: true, stats: JSON.stringify({ numRecords: rows }), ...extra },
});

function writeLines(root: string, v: number, lines: (object | string)[]): void {
  writeFileSync(join(root, '_delta_log', `${pad(v)}.json`), lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
}

function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/** Portable 32-bit RoaringBitmap of run containers, wrapped as Delta DV bytes (magic, one bucket). */
export function runContainerDv(containers: { key: number; runs: [number, number][]; card?: number }[]): Buffer {
  const size = containers.length;
  const parts: Buffer[] = [];
  const head = Buffer.alloc(16);
  head.writeUInt32LE(DV_MAGIC, 0);
  head.writeBigUInt64LE(1n, 4);
  head.writeUInt32LE(0, 12); // bucket key
  parts.push(head);
  const cookie = Buffer.alloc(4);
  cookie.writeUInt32LE((12347 | ((size - 1) << 16)) >>> 0, 0);
  parts.push(cookie);
  parts.push(Buffer.alloc(Math.ceil(size / 8), 0xff)); // every container is a run container
  const desc = Buffer.alloc(4 * size);
  containers.forEach((c, i) => {
    const card = c.card ?? c.runs.reduce((n, [, len]) => n + len + 1, 0);
    desc.writeUInt16LE(c.key, 4 * i);
    desc.writeUInt16LE((card - 1) & 0xffff, 4 * i + 2);
  });
  parts.push(desc);
  if (size >= 4) parts.push(Buffer.alloc(4 * size)); // offsets (unused by readers that walk)
  for (const c of containers) {
    const b = Buffer.alloc(2 + 4 * c.runs.length);
    b.writeUInt16LE(c.runs.length, 0);
    c.runs.forEach(([start, len], r) => { b.writeUInt16LE(start, 2 + 4 * r); b.writeUInt16LE(len, 4 + 4 * r); });
    parts.push(b);
  }
  return Buffer.concat(parts);
}

/** A 64-bit DV without run containers whose header claims `size` containers (too many). */
function manyContainersDv(size: number): Buffer {
  const b = Buffer.alloc(16 + 8);
  b.writeUInt32LE(DV_MAGIC, 0);
  b.writeBigUInt64LE(1n, 4);
  b.writeUInt32LE(0, 12);
  b.writeUInt32LE(12346, 16);
  b.writeUInt32LE(size, 20);
  return Buffer.concat([b, Buffer.alloc(8 * 16)]);
}

/** A DV file (version byte, then size, bitmap, CRC-32 big-endian) and the descriptor naming it. */
function dvFile(root: string, bitmap: Buffer, cardinality: number): object {
  const uuid = Uint8Array.from({ length: 16 }, (_, i) => i * 7 + 3);
  const hex = Buffer.from(uuid).toString('hex');
  const name = `deletion_vector_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}.bin`;
  mkdirSync(join(root, 'dv'), { recursive: true });
  const size = Buffer.alloc(4);
  size.writeUInt32BE(bitmap.length, 0);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE((zlib as unknown as { crc32: (d: Uint8Array) => number }).crc32(bitmap) >>> 0, 0);
  writeFileSync(join(root, 'dv', name), Buffer.concat([Buffer.from([1]), size, bitmap, crc]));
  return { storageType: 'u', pathOrInlineDv: 'dv' + z85Encode(uuid), offset: 1, sizeInBytes: bitmap.length, cardinality };
}

/** Builds every case into `dir` (a fresh temp folder). POSIX only (symlinks, FIFOs). */
export async function buildHostileCorpus(dir: string, duck: Duck): Promise<HostileCorpus> {
  const outside = join(dir, 'outside');
  mkdirSync(join(outside, 'log'), { recursive: true });
  const parquet = async (file: string, select: string): Promise<void> => {
    await duck.conn.run(`COPY (${select}) TO ${sqlString(file)} (FORMAT parquet)`);
  };
  await parquet(join(outside, 'secret.parquet'), `SELECT 1::BIGINT AS id, ${sqlString(SECRET)} AS s`);
  writeFileSync(join(outside, 'secret.bin'), Buffer.from(`${SECRET}${SECRET}${SECRET}`));
  writeFileSync(join(outside, 'secret.json'), `{"commitInfo":{"secret":"${SECRET}"}}\n{"add":{"path":"${SECRET}.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}\n`);
  // A sidecar outside the table: if it were read, its add would bring the secret file in.
  await parquet(join(outside, 'sidecar.parquet'),
    `SELECT {'path': ${sqlString(join(outside, 'secret.parquet'))}, 'partitionValues': MAP{}::MAP(VARCHAR, VARCHAR), 'size': 1::BIGINT, 'modificationTime': 1::BIGINT, 'dataChange': false, 'stats': '{"numRecords":1}'} AS add`);

  const cases: HostileCase[] = [];
  const servers: Server[] = [];
  let n = 0;
  const table = async (opts: { data?: boolean } = {}): Promise<string> => {
    const root = join(dir, `t${n++}`);
    mkdirSync(join(root, '_delta_log'), { recursive: true });
    if (opts.data !== false) await parquet(join(root, 'part-0.parquet'), 'SELECT range::BIGINT AS id, \'in\' AS s FROM range(3)');
    return root;
  };
  const schema = [field('id'), field('s', 'string')];
  const head = [info(), protocol(), metaData(schema)];
  const simple = async (extraLines: (object | string)[], opts: { data?: boolean } = {}): Promise<string> => {
    const root = await table(opts);
    writeLines(root, 0, [...head, add('part-0.parquet', 3)]);
    if (extraLines.length > 0) writeLines(root, 1, [info(2), ...extraLines]);
    return root;
  };
  const push = (c: HostileCase): void => { cases.push(c); };

  // --- Reads outside the real root -------------------------------------------------------------
  {
    const root = await simple([add('linked.parquet', 1)]);
    symlinkSync(join(outside, 'secret.parquet'), join(root, 'linked.parquet'));
    push({ name: 'data file symlinked outside', klass: 'outside-root', root, stage: 'scan', code: 'path_outside_table', mentions: ['linked.parquet'] });
  }
  {
    const root = await simple([add('data/secret.parquet', 1)]);
    symlinkSync(outside, join(root, 'data'));
    push({ name: 'data folder symlinked outside', klass: 'outside-root', root, stage: 'scan', code: 'path_outside_table', mentions: ['data/secret.parquet'] });
  }
  {
    const root = await table();
    const dv = dvFile(root, runContainerDv([{ key: 0, runs: [[0, 0]] }]), 1) as { pathOrInlineDv: string };
    const name = 'dv/' + readdirSync(join(root, 'dv'))[0];
    rmSync(join(root, name));
    symlinkSync(join(outside, 'secret.bin'), join(root, name));
    writeLines(root, 0, [...head, add('part-0.parquet', 3, { deletionVector: dv })]);
    push({ name: 'DV file symlinked outside', klass: 'outside-root', root, stage: 'scan', code: 'path_outside_table', mentions: [name] });
  }
  {
    const root = await simple([]);
    symlinkSync(join(outside, 'secret.json'), join(root, '_delta_log', `${pad(1)}.json`));
    push({ name: 'commit symlinked outside', klass: 'outside-root', root, stage: 'snapshot', code: 'path_outside_table', mentions: [`${pad(1)}.json`] });
  }
  {
    const root = join(dir, `t${n++}`);
    mkdirSync(root);
    writeFileSync(join(outside, 'log', `${pad(0)}.json`), [info(), protocol(), metaData(schema), add(join(outside, 'secret.parquet'), 1)].map((l) => JSON.stringify(l)).join('\n') + '\n');
    symlinkSync(join(outside, 'log'), join(root, '_delta_log'));
    push({ name: '_delta_log symlinked outside', klass: 'outside-root', root, stage: 'open', code: 'path_outside_table', mentions: ['_delta_log'] });
  }
  {
    const root = await simple([]);
    symlinkSync('/dev/zero', join(root, '_delta_log', `${pad(1)}.json`));
    push({ name: 'commit symlinked to /dev/zero', klass: 'outside-root', root, stage: 'snapshot', code: 'path_outside_table', mentions: [`${pad(1)}.json`] });
    push({ name: 'commit symlinked to /dev/zero, outside paths allowed', klass: 'special-file', root, stage: 'snapshot', code: 'not_a_regular_file', mentions: [`${pad(1)}.json`, 'character device'], open: { allowOutsidePaths: true } });
  }
  for (const [label, sidecar] of [
    ['..', '../../outside/sidecar.parquet'],
    ['absolute', join(outside, 'sidecar.parquet')],
    ['file://', `file://${join(outside, 'sidecar.parquet')}`],
    ['file://otherhost', `file://otherhost${join(dir, 'sidecar.parquet')}`],
  ] as const) {
    const root = await table();
    mkdirSync(join(root, '_delta_log', '_sidecars'));
    // Only the v2 checkpoint rebuilds version 1 (commit 0 and 1 were cleaned up).
    writeFileSync(join(root, '_delta_log', `${pad(1)}.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json`),
      [{ checkpointMetadata: { version: 1 } }, protocol(3, 7, ['v2Checkpoint']), metaData(schema), { sidecar: { path: sidecar, sizeInBytes: 1, modificationTime: 1 } }]
        .map((l) => JSON.stringify(l)).join('\n') + '\n');
    writeLines(root, 2, [info(3)]);
    push({ name: `v2 sidecar path ${label}`, klass: 'outside-root', root, stage: 'snapshot', code: 'checkpoint_corrupt', mentions: [sidecar, '_sidecars'] });
  }
  {
    const root = await table();
    writeLines(root, 0, [...head, add(`file://otherhost${join(root, 'part-0.parquet')}`, 3)]);
    push({ name: 'file://otherhost data path', klass: 'outside-root', root, stage: 'snapshot', code: 'path_outside_table', mentions: ['file://otherhost'] });
  }

  // --- Special files: refused by name, never blocking ------------------------------------------
  {
    const root = await simple([]);
    mkfifo(join(root, '_delta_log', `${pad(1)}.json`));
    push({ name: 'commit is a FIFO', klass: 'special-file', root, stage: 'snapshot', code: 'not_a_regular_file', mentions: [`${pad(1)}.json`, 'FIFO'] });
  }
  {
    const root = await simple([]);
    mkfifo(join(root, '_delta_log', '_last_checkpoint'));
    push({ name: '_last_checkpoint is a FIFO', klass: 'special-file', root, stage: 'none', code: null, mentions: [], warning: 'FIFO' });
  }
  {
    const root = await simple([]);
    mkfifo(join(root, '_delta_log', `${pad(0)}.checkpoint.parquet`));
    writeLines(root, 1, [info(2)]);
    push({ name: 'checkpoint is a FIFO', klass: 'special-file', root, stage: 'snapshot', code: 'not_a_regular_file', mentions: ['checkpoint.parquet', 'FIFO'] });
  }
  {
    const root = await simple([add('pipe.parquet', 1)]);
    mkfifo(join(root, 'pipe.parquet'));
    push({ name: 'data file is a FIFO', klass: 'special-file', root, stage: 'scan', code: 'not_a_regular_file', mentions: ['pipe.parquet', 'FIFO'] });
  }

  {
    const root = await simple([]);
    const server = createServer();
    await new Promise<void>((ok) => server.listen(join(root, '_delta_log', `${pad(1)}.json`), ok));
    server.unref();
    servers.push(server);
    push({ name: 'commit is a socket', klass: 'special-file', root, stage: 'snapshot', code: 'not_a_regular_file', mentions: [`${pad(1)}.json`, 'socket'] });
  }

  // --- Sizes ------------------------------------------------------------------------------------
  {
    const root = await simple([{ commitInfo: { timestamp: 2, operation: 'WRITE', padding: 'x'.repeat(4096) } }]);
    push({ name: 'commit over the size limit', klass: 'size', root, stage: 'snapshot', code: 'limit_exceeded', mentions: [`${pad(1)}.json`, 'LAKEREC_MAX_COMMIT_MB'],
      open: { limits: { commitBytes: 2048 } }, env: { LAKEREC_MAX_COMMIT_MB: '0.002' } });
  }

  // --- Versions -----------------------------------------------------------------------------------
  {
    const root = await simple([]);
    writeFileSync(join(root, '_delta_log', `${pad('9007199254740993')}.json`), JSON.stringify(info()) + '\n');
    push({ name: 'version above 2^53', klass: 'version', root, stage: 'open', code: 'log_corrupt', mentions: ['9007199254740993', '2^53'] });
  }
  {
    const root = await simple([]);
    writeFileSync(join(root, '_delta_log', `${'1'.repeat(25)}.json`), JSON.stringify(info()) + '\n');
    push({ name: 'version of 25 digits', klass: 'version', root, stage: 'open', code: 'log_corrupt', mentions: ['25 digits'] });
  }
  {
    const root = await simple([]);
    writeFileSync(join(root, '_delta_log', `${pad(50_000_000)}.json`), JSON.stringify(info()) + '\n');
    push({ name: 'version 50,000,000 after 0', klass: 'version', root, stage: 'snapshot', code: 'version_missing', mentions: ['commit 1 is missing'] });
  }

  {
    const root = await simple([]);
    writeFileSync(join(root, '_delta_log', `${pad(0)}.checkpoint.0000000001.9999999999.parquet`), 'x');
    push({ name: 'multi-part checkpoint claiming 9,999,999,999 parts', klass: 'version', root, stage: 'none', code: null, mentions: [] });
  }

  // --- Deletion vectors ---------------------------------------------------------------------------
  const billion = Array.from({ length: 16384 }, (_, key) => ({ key, runs: [[0, 65535]] as [number, number][] }));
  const dvCase = async (name: string, bitmap: Buffer, cardinality: number, numRecords: number, code: ErrorCode, mentions: string[]): Promise<void> => {
    const root = await table();
    writeLines(root, 0, [...head, add('part-0.parquet', numRecords, { deletionVector: dvFile(root, bitmap, cardinality) })]);
    push({ name, klass: 'deletion-vector', root, stage: 'scan', code, mentions });
  };
  await dvCase('DV of run containers covering a billion rows (230 KB)', runContainerDv(billion), 2 ** 30, 2 ** 30 + 1, 'limit_exceeded', ['LAKEREC_MAX_DV_ROWS']);
  await dvCase('DV of a billion rows, descriptor cardinality 2', runContainerDv(billion), 2, 3, 'log_corrupt', ['cardinality 2']);
  await dvCase('DV whose run overflows its container', runContainerDv([{ key: 0, runs: [[65000, 1000]] }]), 1001, 3, 'log_corrupt', ['overflows']);
  await dvCase('DV container keys out of order', runContainerDv([{ key: 5, runs: [[0, 0]] }, { key: 3, runs: [[0, 0]] }]), 2, 3, 'log_corrupt', ['out of order']);
  await dvCase('DV with 70,000 containers in one bitmap', manyContainersDv(70_000), 1, 3, 'log_corrupt', ['65,536']);
  await dvCase('DV deleting a row beyond the file', runContainerDv([{ key: 0, runs: [[10, 0]] }]), 1, 3, 'log_corrupt', ['numRecords']);
  await dvCase('DV run header count mismatch', runContainerDv([{ key: 0, runs: [[0, 1]], card: 5 }]), 5, 10, 'log_corrupt', ['header says 5']);

  // --- One JSON semantics -------------------------------------------------------------------------
  const rawAdd = (members: string): string => `{"add":{${members},"partitionValues":{},"size":1,"modificationTime":1,"dataChange":true,"stats":"{\\"numRecords\\":1}"}}`;
  {
    const root = await simple([rawAdd('"path":"part-0.parquet","pa\\u0074h":"../outside/secret.parquet"')]);
    push({ name: 'escaped key "pa\\u0074h" (the last path wins)', klass: 'json', root, stage: 'snapshot', code: 'path_outside_table', mentions: ['../outside/secret.parquet'] });
  }
  {
    const root = await simple([rawAdd(`"path":"part-0.parquet","path":${JSON.stringify(join(outside, 'secret.parquet'))}`)]);
    push({ name: 'duplicate "path" key (the last wins)', klass: 'json', root, stage: 'snapshot', code: 'path_outside_table', mentions: ['secret.parquet'] });
  }
  {
    const root = await simple([`[${JSON.stringify(add(join(outside, 'secret.parquet'), 1))}]`]);
    push({ name: 'a commit line that is a JSON array', klass: 'json', root, stage: 'snapshot', code: 'log_corrupt', mentions: ['version 1', 'line 2', 'array'] });
  }
  {
    const root = await simple(['42']);
    push({ name: 'a commit line that is a number', klass: 'json', root, stage: 'snapshot', code: 'log_corrupt', mentions: ['version 1', 'line 2'] });
  }
  {
    const root = await simple([JSON.stringify({ ...add('part-0.parquet', 1), remove: { path: 'part-0.parquet', dataChange: true } })]);
    push({ name: 'two actions on one line', klass: 'json', root, stage: 'snapshot', code: 'log_corrupt', mentions: ['two actions'] });
  }

  // --- Metadata invalid per the protocol ----------------------------------------------------------
  {
    const root = await table();
    writeLines(root, 0, [info(), protocol(), metaData(schema, ['region']), add('part-0.parquet', 3)]);
    push({ name: 'partitionColumns names a column the schema lacks', klass: 'metadata', root, stage: 'snapshot', code: 'metadata_invalid', mentions: ['"region"'] });
  }
  {
    const root = await table();
    writeLines(root, 0, [info(), protocol(), metaData([field('id'), field('ID', 'string')]), add('part-0.parquet', 3)]);
    push({ name: 'two columns named id and ID', klass: 'metadata', root, stage: 'snapshot', code: 'metadata_invalid', mentions: ['"id"', '"ID"'] });
  }
  {
    const root = await table();
    const nested = { type: 'struct', fields: [field('a'), field('a', 'string')] };
    writeLines(root, 0, [info(), protocol(), metaData([field('id'), field('n', nested)]), add('part-0.parquet', 3)]);
    push({ name: 'a struct with two fields named a', klass: 'metadata', root, stage: 'snapshot', code: 'metadata_invalid', mentions: ['"n"'] });
  }
  {
    const root = await table();
    // Built as text: JSON.stringify itself would overflow the stack on the object.
    let type = '"long"';
    for (let i = 0; i < 20_000; i++) type = `{"type":"array","elementType":${type},"containsNull":true}`;
    const schemaString = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"deep","type":${type},"nullable":true,"metadata":{}}]}`;
    const md = { metaData: { id: 'hostile', format: { provider: 'parquet', options: {} }, schemaString, partitionColumns: [], configuration: {}, createdTime: 1 } };
    writeLines(root, 0, [info(), protocol(), md, add('part-0.parquet', 3)]);
    push({ name: 'a type nested 20,000 deep', klass: 'metadata', root, stage: 'snapshot', code: 'metadata_invalid', mentions: ['100 levels'] });
  }
  const close = async (): Promise<void> => {
    await Promise.all(servers.map((sv) => new Promise<void>((ok) => sv.close(() => ok()))));
  };
  return { dir, outside, cases, close };
}
