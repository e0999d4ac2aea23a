// A column name and a value from a hostile table, through a real reconcile into the markdown a
// CI job appends to $GITHUB_STEP_SUMMARY: no heading, link, image, HTML or extra cell appears.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { openDuck, sqlIdent, sqlString, type Duck } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { parseContract } from './contract';
import { reconcile } from './reconcile';
import { mdCode, mdEscape, renderMarkdown } from './report';

const evil = 'x\n# Pwned ![img](https://evil.example/p.png) [link](https://evil.example) <img src=x onerror=alert(1)> | cell';
let dir: string;
let duck: Duck;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-md-'));
  duck = await openDuck({ threads: 1 });
});
afterAll(() => { duck?.close(); if (dir) rmSync(dir, { recursive: true, force: true }); });

it('escapes column names and values fully in the markdown report', async () => {
  const schema: StructType = { type: 'struct', fields: [
    { name: 'id', type: 'long', nullable: false, metadata: {} },
    { name: evil, type: 'string', nullable: true, metadata: {} },
  ] };
  const rows = (v: string) => `SELECT i::BIGINT AS id, ${sqlString(v)} || i AS ${sqlIdent(evil)} FROM range(1, 6) r(i)`;
  const root = join(dir, 't');
  const w = await DeltaWriter.create(root, { schema, partitionColumns: [], duck });
  try { await w.append({ sql: rows('# Heading ![v](https://evil.example/v.png) ') }); } finally { w.close(); }
  const src = join(dir, 's.parquet');
  await duck.conn.run(`COPY (${rows('`code` [l](javascript:alert(1)) ')}) TO ${sqlString(src)} (FORMAT parquet)`);
  const r = await reconcile({ source: src, target: { root }, contract: parseContract('version: 1\nkeys: [id]\n'), level: 'rows' });
  expect(r.rowDiffs.length).toBeGreaterThan(0);
  const md = renderMarkdown(r);
  expect(md).toContain('Example rows');
  for (const line of md.split('\n')) {
    if (line.startsWith('#')) expect(line).toMatch(/^#{1,3} (Reconcile|Findings|Partitions|Example rows|How it was compared|❌ |ℹ️ )/);
  }
  // What markdown still sees once backslash escapes are taken out: no image, link, HTML, scheme.
  // (code spans are literal text in markdown, so they are taken out too).
  const bare = md.replace(/\\[\s\S]/g, '').replace(/(`+)[^\n]*?\1/g, '');
  expect(bare).not.toMatch(/!\[|\]\(|<img|<a |javascript:|https:/);
  // every table row keeps its own cell count: an escaped | opens no cell
  const table = md.split('\n').filter((l) => l.startsWith('| key '));
  expect(table.length).toBe(1);
  expect(mdEscape('a|b')).toBe('a\\|b');
  expect(mdCode('a`b')).toBe('``a`b``');
  expect(mdCode('x\ny|z')).toBe('`x\\ny\\|z`');
});
