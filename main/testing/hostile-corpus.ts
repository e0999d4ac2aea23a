// A hostile corpus built on demand (never committed as binaries): Delta tables, contracts and
// sources crafted as an adversary would, each with the exit code every command must give. The
// canary files (`pwned-*`) must never appear: their presence means SQL from a table or a contract
// ran. Used by main/engine/hostile.test.ts (in-process) and main/cli/hostile.test.ts (the real bin).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { openDuck, sqlString } from '../engine/duck';
import { DeltaWriter } from '../writer';

export type Cmd = 'history' | 'forensics' | 'snapshot' | 'reconcile' | 'bisect';

export interface HostileCase {
  name: string;
  /** The table every command reads. */
  table: string;
  /** The reconcile source and contract (a clean one when the case is about the table). */
  source: string;
  contract: string;
  /** Documented exit code per command (0 ok, 1 finding, 2 invocation, 3 unreadable). */
  expect: Record<Cmd, number | number[]>;
  /** A pattern the one stderr line must match (for the commands that fail). */
  stderr?: RegExp;
  /** The commands the case is about (a contract case only changes what reconcile does). */
  only?: Cmd[];
}

export interface HostileCorpus {
  dir: string;
  /** A file whose content must never be copied anywhere. */
  secret: string;
  /** Files that must not exist after any run (written only if injected SQL ran). */
  canaries: string[];
  cases: HostileCase[];
}

const schema: StructType = {
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: false, metadata: {} },
    { name: 'ts', type: 'timestamp', nullable: true, metadata: {} },
    { name: 'dt', type: 'date', nullable: true, metadata: {} },
  ],
};
const rowsSql = `SELECT i::BIGINT AS id, TIMESTAMPTZ '2026-08-10 05:00:00+00' + to_hours(i) AS ts,
  (DATE '2026-08-10' + (i // 24)::INTEGER) AS dt FROM range(1, 49) r(i)`;

const protocol = { protocol: { minReaderVersion: 1, minWriterVersion: 2 } };
function metaData(schemaString: string, partitionColumns: string[] = []): object {
  return { metaData: { id: 'hostile', format: { provider: 'parquet', options: {} }, schemaString, partitionColumns, configuration: {}, createdTime: 1_780_000_000_000 } };
}

/** A table written by hand: one commit with protocol, metaData and the given adds. */
function handTable(root: string, meta: object, adds: object[] = []): void {
  mkdirSync(join(root, '_delta_log'), { recursive: true });
  const lines = [protocol, meta, ...adds, { commitInfo: { timestamp: 1_780_000_000_000, operation: 'CREATE TABLE' } }];
  writeFileSync(join(root, '_delta_log', '00000000000000000000.json'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

export async function buildHostileCorpus(dir: string): Promise<HostileCorpus> {
  mkdirSync(dir, { recursive: true });
  const secret = join(dir, 'secret.txt');
  writeFileSync(secret, 'TOP-SECRET-CANARY\n');
  const canaries = ['pwned-type.txt', 'pwned-expr.txt', 'pwned-copy.txt', 'pwned-col.txt'].map((n) => join(dir, n));
  const duck = await openDuck({ threads: 1, memoryLimit: '256MB' });
  const cases: HostileCase[] = [];
  try {
    // A clean table, its Parquet and CSV source, and its contract.
    const clean = join(dir, 'clean');
    const w = await DeltaWriter.create(clean, { schema, partitionColumns: ['dt'], duck });
    try { await w.append({ sql: rowsSql }); } finally { w.close(); }
    const sourceCsv = join(dir, 'source.csv');
    await duck.conn.run(`COPY (${rowsSql}) TO ${sqlString(sourceCsv)} (FORMAT csv, HEADER)`);
    const contract = join(dir, 'contract.yaml');
    writeFileSync(contract, 'version: 1\nkeys: [id]\npartitioning: { column: dt }\n');
    const ok: HostileCase['expect'] = { history: 0, forensics: 0, snapshot: 0, reconcile: 0, bisect: 0 };
    cases.push({ name: 'the clean table (control)', table: clean, source: sourceCsv, contract, expect: ok });

    // 1. A type in schemaString that is SQL: pasted into CAST(... AS <type>) it would write a file
    //    and copy the secret. Reconcile from CSV must refuse the type (exit 3), not run it.
    const typeSql = `BIGINT); COPY (SELECT 1) TO ${sqlString(canaries[0])}; COPY (SELECT * FROM read_text(${sqlString(secret)})) TO ${sqlString(canaries[2])}; SELECT CAST(1 AS BIGINT`;
    const typed = join(dir, 'type_injection');
    handTable(typed, metaData(JSON.stringify({ type: 'struct', fields: [
      { name: 'id', type: 'long', nullable: false, metadata: {} },
      { name: 'ts', type: typeSql, nullable: true, metadata: {} },
      { name: 'dt', type: 'date', nullable: true, metadata: {} },
    ] })));
    cases.push({ name: 'a SQL statement as a column type', table: typed, source: sourceCsv, contract,
      expect: { history: 0, forensics: 0, snapshot: 3, reconcile: 3, bisect: [0, 3] }, stderr: /not supported|unsupported/ });

    // 2. A partition expression that chains statements, and one that reads a file.
    const exprChain = join(dir, 'expr-chain.yaml');
    writeFileSync(exprChain, `version: 1\nkeys: [id]\npartitioning:\n  column: part\n  expression: "CAST(ts AS DATE)); COPY (SELECT 1) TO ${sqlString(canaries[1]).replace(/"/g, '\\"')}; SELECT (1"\n`);
    cases.push({ name: 'a partition expression that chains a statement', table: clean, source: sourceCsv, contract: exprChain,
      expect: { ...ok, reconcile: 2 }, only: ['reconcile'], stderr: /expr-chain\.yaml:5: partition expression refused/ });
    const exprTwo = join(dir, 'expr-two.yaml');
    writeFileSync(exprTwo, `version: 1\nkeys: [id]\npartitioning:\n  column: part\n  expression: "CAST(ts AS DATE); COPY (SELECT 1) TO ${sqlString(canaries[1]).replace(/"/g, '\\"')}"\n`);
    cases.push({ name: 'a partition expression followed by a second statement', table: clean, source: sourceCsv, contract: exprTwo,
      expect: { ...ok, reconcile: 2 }, stderr: /expr-two\.yaml:5: partition expression refused: (one expression only|not a single SQL expression \(Only SELECT)/, only: ['reconcile'] });
    const exprRead = join(dir, 'expr-read.yaml');
    writeFileSync(exprRead, `version: 1\nkeys: [id]\npartitioning:\n  column: part\n  expression: "(SELECT content FROM read_text(${sqlString(secret).replace(/"/g, '\\"')}))"\n`);
    cases.push({ name: 'a partition expression with a subquery reading a file', table: clean, source: sourceCsv, contract: exprRead,
      expect: { ...ok, reconcile: 2 }, only: ['reconcile'], stderr: /partition expression refused: a subquery/ });
    const exprFn = join(dir, 'expr-fn.yaml');
    writeFileSync(exprFn, `version: 1\nkeys: [id]\npartitioning:\n  column: part\n  expression: "getenv('HOME') || current_setting('temp_directory')"\n`);
    cases.push({ name: 'a partition expression calling functions outside the allow list', table: clean, source: sourceCsv, contract: exprFn,
      expect: { ...ok, reconcile: 2 }, only: ['reconcile'], stderr: /function getenv\(\) is not allowed/ });

    // 3. A YAML alias bomb, a contract over the size cap, a contract and a source that are FIFOs.
    const bomb = join(dir, 'bomb.yaml');
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++) levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)},*${String.fromCharCode(96 + i)}]`);
    writeFileSync(bomb, `version: 1\nkeys: [id]\n${levels.join('\n')}\n`);
    cases.push({ name: 'a YAML alias bomb as the contract', table: clean, source: sourceCsv, contract: bomb, expect: { ...ok, reconcile: 2 }, only: ['reconcile'], stderr: /bomb\.yaml:\d+: / });
    const huge = join(dir, 'huge.yaml');
    writeFileSync(huge, 'version: 1\nkeys: [id]\n' + '# padding\n'.repeat(150_000));
    cases.push({ name: 'a contract over the size cap', table: clean, source: sourceCsv, contract: huge, expect: { ...ok, reconcile: 2 }, only: ['reconcile'], stderr: /larger than/ });
    const fifoContract = join(dir, 'fifo-contract.yaml');
    const fifoSource = join(dir, 'fifo-source.csv');
    execFileSync('mkfifo', [fifoContract, fifoSource]);
    cases.push({ name: 'a contract that is a FIFO', table: clean, source: sourceCsv, contract: fifoContract, expect: { ...ok, reconcile: 2 }, only: ['reconcile'], stderr: /not a regular file/ });
    cases.push({ name: 'a source that is a FIFO', table: clean, source: fifoSource, contract, expect: { ...ok, reconcile: 3 }, only: ['reconcile'], stderr: /not a regular file/ });

    // 4. Unknown columns named by the contract: every one reported, with its line.
    const unknownCols = join(dir, 'unknown-cols.yaml');
    writeFileSync(unknownCols, 'version: 1\nkeys: [id]\npartitioning: { column: dt }\nignore: [nope_a]\nrenames: { nope_b: id2 }\nordering: nope_c\ncolumns:\n  nope_d: { float: exclude }\nlateness: { column: nope_e, allow: 1 day }\n');
    cases.push({ name: 'a contract naming columns neither side has', table: clean, source: sourceCsv, contract: unknownCols,
      expect: { ...ok, reconcile: 2 }, only: ['reconcile'], stderr: /unknown-cols\.yaml:4: .*nope_a.*unknown-cols\.yaml:5: .*nope_b.*:6: .*nope_c.*:8: .*nope_d.*:9: .*nope_e/ });

    // 5. Control characters in a path and in a column name (not a table; a markdown injection).
    const ctrl = join(dir, 'ctrl\n\u001b[31mRED\u0007');
    mkdirSync(ctrl, { recursive: true });
    cases.push({ name: 'a path with a newline and an escape sequence', table: ctrl, source: sourceCsv, contract,
      expect: { history: 3, forensics: 3, snapshot: 3, reconcile: 3, bisect: 3 }, stderr: /ctrl\\n\\x1b\[31mRED\\x07/ });

    // 6. Malformed metadata a JavaScript reader trips over (fields is not an array).
    const badMeta = join(dir, 'bad_metadata');
    handTable(badMeta, metaData(JSON.stringify({ type: 'struct', fields: { length: 1 } })));
    cases.push({ name: 'a schemaString whose fields is not a list', table: badMeta, source: sourceCsv, contract,
      expect: { history: [0, 3], forensics: [0, 3], snapshot: 3, reconcile: 3, bisect: [0, 3] } });
  } finally {
    duck.close();
  }
  return { dir, secret, canaries, cases };
}
