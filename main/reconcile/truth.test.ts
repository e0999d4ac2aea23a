// Every sentence of a reconcile result true (issue 25): the report names the digest that ran,
// example rows mark only what the verdict's comparison calls different, a level that read no rows
// says so (null, "not read") instead of 0 or "every partition agrees".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { parseContract } from './contract';
import { reconcile } from './reconcile';
import { renderJson, renderMarkdown, renderReconcileHtml } from './report';

const schema: StructType = {
  type: 'struct',
  fields: (['id:long', 'name:string', 'price:double', 'ts:timestamp', 'dt:date'] as const).map((s) => {
    const [name, type] = s.split(':');
    return { name, type, nullable: name !== 'id', metadata: {} };
  }),
};
const rowsSql = `SELECT i::BIGINT AS id, 'n' || i AS name, i / 8.0 AS price,
  TIMESTAMPTZ '2026-08-10 00:00:00+00' + to_hours((i % 3) * 24 + 5) AS ts,
  DATE '2026-08-10' + (i % 3)::INTEGER AS dt FROM range(1, 31) r(i)`;
// Naive timestamps in the source, zoned in the table; the contract says naive is UTC.
const contract = parseContract('version: 1\nname: t\nkeys: [id]\npartitioning: { column: dt }\ncolumns:\n  price: { float: { tolerance: 1.0e-6 } }\ntimestamps: { naive_is_utc: true }\n');

let dir: string;
let duck: Duck;
let source: string;

async function table(name: string, ...appends: string[]): Promise<string> {
  const root = join(dir, name);
  const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], duck });
  try { for (const sql of appends) await w.append({ sql }); } finally { w.close(); }
  return root;
}

/** The example rows section of a markdown report (its table rows only). */
const exampleRows = (md: string) => (md.split('## Example rows')[1] ?? '').split('\n## ')[0].split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| key'));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-truth-'));
  duck = await openDuck({ threads: 1 });
  source = join(dir, 'naive.parquet');
  await duck.conn.run(`COPY (SELECT * REPLACE (CAST(ts AT TIME ZONE 'UTC' AS TIMESTAMP) AS ts) FROM (${rowsSql})) TO ${sqlString(source)} (FORMAT parquet)`);
});

afterAll(() => {
  duck?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('example rows mark what the verdict compared', () => {
  it('a pure duplicate under naive_is_utc marks no column and no move', async () => {
    const root = await table('doubled', rowsSql, `SELECT * FROM (${rowsSql}) WHERE dt = DATE '2026-08-11'`);
    const r = await reconcile({ source, target: { root }, contract, level: 'rows' });
    expect(r.findings.map((f) => f.mode)).toEqual(['double_load']);
    const dups = r.rowDiffs.filter((d) => d.kind === 'duplicate');
    expect(dups.length).toBeGreaterThan(0);
    // The source's ts text has no offset, the target's has one: the same instant, not a change.
    expect(dups[0].source?.ts).not.toBe(dups[0].target?.ts);
    for (const d of dups) expect(d.columns).toEqual([]);
    const md = renderMarkdown(r);
    const lines = exampleRows(md);
    expect(lines.length).toBe(dups.length);
    for (const l of lines) {
      expect(l).not.toContain('**');
      expect(l).not.toMatch(/dt\\=2026\\-08\\-11 -> /);
    }
    const html = renderReconcileHtml(r);
    expect(html).not.toContain('<del>');
    expect(html).not.toContain('&rarr;');
    expect(html).not.toContain('\u2192');
  });

  it('a changed row marks the changed column only, not a float within its tolerance', async () => {
    const root = await table('changed', `SELECT * REPLACE (CASE WHEN id = 5 THEN 'renamed' ELSE name END AS name, CASE WHEN id = 5 THEN price + 1e-9 ELSE price END AS price) FROM (${rowsSql})`);
    const r = await reconcile({ source, target: { root }, contract, level: 'rows' });
    const changed = r.rowDiffs.filter((d) => d.kind === 'changed');
    expect(changed.map((d) => [d.key.id, d.columns])).toEqual([['5', ['name']]]);
    expect(changed[0].source?.price).not.toBe(changed[0].target?.price);
    const lines = exampleRows(renderMarkdown(r));
    expect(lines).toHaveLength(1);
    expect(lines[0].match(/\*\*/g)).toHaveLength(2);
    expect(lines[0]).toContain('**renamed**');
    const html = renderReconcileHtml(r);
    // The finding's evidence and the example rows section show the row: each marks name alone.
    const dels = html.match(/<del>[^<]*<\/del>/g) ?? [];
    expect(dels.length).toBeGreaterThan(0);
    expect(new Set(dels)).toEqual(new Set(['<del>n5</del>']));
  });
});

describe('the report names the digest that ran', () => {
  it('DuckDB hash() under the default digest, md5 under --digest md5', async () => {
    const root = await table('clean', rowsSql);
    const fast = await reconcile({ source, target: { root }, contract, level: 'checksum' });
    expect(fast.digest).toMatch(/^duckdb-hash-v2@/);
    for (const text of [renderMarkdown(fast), renderReconcileHtml(fast)]) {
      const how = text.slice(text.indexOf('How it was compared')).replace(/&#39;/g, "'");
      expect(how).toMatch(/DuckDB v[\d.]+'s hash\(\)/);
      expect(how).not.toContain('md5');
    }
    const md5 = await reconcile({ source, target: { root }, contract, level: 'checksum', digest: 'md5' });
    expect(md5.digest).toBe('md5-canonical-v1');
    for (const text of [renderMarkdown(md5), renderReconcileHtml(md5)]) {
      const how = text.slice(text.indexOf('How it was compared')).replace(/&#39;/g, "'");
      expect(how).toContain("md5 of each row's canonical bytes");
      expect(how).not.toContain('hash()');
    }
  });
});

describe('a level that reads no rows says so', () => {
  it('schema: rows are null (not 0) in JSON and "not read" in text; no partition is said to agree', async () => {
    const root = await table('schema', rowsSql);
    const r = await reconcile({ source, target: { root }, contract, level: 'schema' });
    expect(r.verdict).toBe('matches');
    expect(r.source.rows).toBeNull();
    expect(r.target.rows).toBeNull();
    const json = JSON.parse(renderJson(r)) as { source: { rows: unknown }; target: { rows: unknown } };
    expect([json.source.rows, json.target.rows]).toEqual([null, null]);
    const md = renderMarkdown(r);
    const html = renderReconcileHtml(r);
    for (const text of [md, html]) {
      expect(text).not.toContain('every partition agrees');
      expect(text).toMatch(/No partition was compared/);
    }
    // Counts level on the same table: the rows are counted and the partitions do agree.
    const counts = await reconcile({ source, target: { root }, contract, level: 'counts' });
    expect([counts.source.rows, counts.target.rows]).toEqual([30, 30]);
    expect(renderMarkdown(counts)).toContain('every partition agrees');
  });
});
