// The trust results' text, markdown and HTML from one result object: every status worded the same
// way in each, markdown cells and HTML escaped, no row invented.
import { describe, expect, it } from 'vitest';
import type { RowDiff } from '../../shared/reconcile';
import type { KeysResult, LawsResult, MutantResult, MutationResult } from '../../shared/trust';
import {
  keysHtml, keysLines, keysMarkdown, lawsHtml, lawsLines, lawsMarkdown, mutationHtml, mutationLines, mutationMarkdown,
  provenanceText, renderMutationHtmlPage, rowsBehindHtml, rowsBehindLines, rowsBehindMarkdown,
} from './report';

const commit = { version: 7, timestamp: Date.UTC(2026, 7, 12, 9), operation: 'WRITE', writer: 'spark <3.5>', fromCheckpoint: false };
const where = { file: 'dt=2026-08-12/part-1.parquet', row: 4, commit };

const mutant = (corruption: string, m: Partial<MutantResult>): MutantResult => ({
  corruption, expectedMode: 'double_load', status: 'run', note: 'did it', partition: 'dt=2026-08-12', rows: 10, levels: [],
  firstNotices: null, firstNames: null, otherModes: [], suggestions: [], ms: 5, ...m,
});

const mutation: MutationResult = {
  table: '/t', version: 7, source: '/s.parquet', contract: { name: 'orders', path: null, sha256: null }, seed: 1, levels: ['counts', 'rows'], baseline: [],
  mutants: [
    mutant('double_load', { firstNotices: 'counts', firstNames: 'counts' }),
    mutant('stale_rows', { expectedMode: 'stale_rows', firstNotices: 'rows' }),
    mutant('missing_rows', { expectedMode: 'missing_rows', suggestions: [
      { change: 'add ordering: updated_at', yaml: 'ordering: updated_at\nkeys: [id]', level: null, checked: { firstNotices: 'rows', firstNames: 'rows', kills: true, names: true } },
      { change: 'run level rows', yaml: '', level: 'rows', checked: { firstNotices: 'rows', firstNames: null, kills: true, names: false } },
      { change: 'tag a | b', yaml: '', level: null, checked: { firstNotices: null, firstNames: null, kills: false, names: false } },
      { change: 'unchecked', yaml: '', level: null, checked: null },
    ] }),
    mutant('float_drift', { expectedMode: null }),
    mutant('recomputed_double', { expectedMode: null, firstNotices: 'rows' }),
    mutant('schema_drift', { status: 'not_applicable', note: 'no <column> to drop' }),
  ],
  perLevel: [{ level: 'counts', named: 1, caught: 0, survived: 2, score: 1 / 3, namedScore: 1 / 3 }, { level: 'rows', named: 1, caught: 1, survived: 1, score: null, namedScore: null }],
  overall: { killed: 2, survived: 1, named: 1, score: 2 / 3, namedScore: 1 / 3, notApplicable: 1, equivalent: 0, silentChecks: 2, falseAlarms: 1, level: 'rows', refused: null, headline: 'score 66.7% at rows | 3 mutants' },
  sandbox: { dir: '/tmp/x', filesReferenced: 12, removed: true }, notes: ['a note'], startedAt: '2026-08-18T09:00:00Z', durationMs: 1234,
};

describe('the mutation score', () => {
  it('text: each status in words, the suggestions and whether each was checked, the sandbox', () => {
    const t = mutationLines(mutation).join('\n');
    expect(t).toContain('Mutation score of orders on /t @ v7 (seed 1)');
    expect(t).toContain('1 of 2 silent check(s) stayed silent');
    expect(t).toMatch(/double_load\s+named\s+counts\s+counts/);
    expect(t).toMatch(/stale_rows\s+caught\s+rows/);
    expect(t).toMatch(/missing_rows\s+SURVIVED/);
    expect(t).toMatch(/float_drift\s+silent \(ok\)/);
    expect(t).toMatch(/recomputed_double\s+FALSE ALARM/);
    expect(t).toMatch(/schema_drift\s+not applicable/);
    expect(t).toContain('suggestion: add ordering: updated_at (checked: then named at rows)');
    expect(t).toContain('        keys: [id]');
    expect(t).toContain('suggestion: run level rows (checked: then caught at rows, still not named)');
    expect(t).toContain('suggestion: tag a | b (checked: still survives)');
    expect(t).toContain('suggestion: unchecked (not checked)');
    expect(t).toMatch(/rows\s+1\s+1\s+1\s+n\/a\s+n\/a/);
    expect(t).toContain('note: a note');
    expect(t).toContain('sandbox: 12 data file(s) referenced read-only, removed; 1.2 s');
  });

  it('markdown: pipes escaped in cells, the same statuses', () => {
    const m = mutationMarkdown(mutation);
    expect(m).toContain('**score 66.7% at rows \\| 3 mutants**');
    expect(m).toContain('| recomputed_double | false alarm |');
    expect(m).toContain('| float_drift | silent |');
    expect(m).toContain('| missing_rows | survived | - | - | add ordering: updated_at (checked: named); run level rows; tag a \\| b; unchecked |');
    expect(m).toContain('| schema_drift | not applicable | - | - | did it |'.replace('did it', 'no <column> to drop'));
    expect(m).toContain('| counts | 1 | 0 | 2 | 33.3% | 33.3% |');
  });

  it('HTML: escaped, a page that runs no script', () => {
    const h = mutationHtml(mutation);
    expect(h).toContain('no &lt;column&gt; to drop');
    expect(h).not.toContain('<column>');
    const page = renderMutationHtmlPage({ ...mutation, table: '/t<script>' });
    expect(page).toContain("default-src 'none'");
    expect(page).toContain('lakerec mutation score: /t&lt;script&gt;');
  });
});

const keys: KeysResult = {
  table: '/t', version: 7, source: null, declared: ['id'], durationMs: 1,
  keys: [
    { columns: ['id'], side: 'table', status: 'failed', rows: 10, nullRows: 1, distinct: 8, repeatedKeys: 1, extraRows: 1, examples: [{ key: 'id=3', rows: 2, where: [where] }], nullExamples: [{ file: 'f.parquet', row: null, commit: null }], note: null },
    { columns: ['id'], side: 'source', status: 'not_checked', rows: 0, nullRows: 0, distinct: 0, repeatedKeys: 0, extraRows: 0, examples: [], nullExamples: [], note: 'no source given' },
  ],
  candidates: [],
  relationships: [
    { column: 'cust', references: { path: '../customers', column: 'id' }, declared: 'many_to_one', observed: 'one_to_one', status: 'failed', rows: 9, nullRows: 0, danglingRows: 2, danglingValues: 1, examples: ['cust=<9>'], referencedKey: { status: 'confirmed', rows: 5, distinct: 5, nullRows: 0 }, note: 'a | note' },
    { column: 'sku', references: { path: '../skus', column: 'sku' }, declared: 'one_to_one', observed: 'one_to_one', status: 'confirmed', rows: 9, nullRows: 0, danglingRows: 0, danglingValues: 0, examples: [], referencedKey: { status: 'confirmed', rows: 5, distinct: 5, nullRows: 0 }, note: null },
  ],
  summary: { keysConfirmed: 0, keysFailed: 1, relationshipsConfirmed: 1, relationshipsFailed: 1, notChecked: 1 },
};

describe('keys and relationships', () => {
  it('text: the repeated key and where its rows live, the null key, the relationship as observed', () => {
    const t = keysLines(keys);
    expect(t[0]).toBe('Keys of /t @ v7: 0 confirmed, 1 failed; relationships: 1 confirmed, 1 failed; 1 not checked');
    expect(t).toContain('  key (id) on the table: failed: 10 row(s), 8 distinct, 1 null, 1 repeated key(s) (1 extra row(s))');
    expect(t).toContain('    id=3: 2 rows');
    expect(t).toContain('      dt=2026-08-12/part-1.parquet#4 (v7 2026-08-12T09:00:00Z WRITE by spark <3.5>)');
    expect(t).toContain('    null key at f.parquet (commit unknown)');
    expect(t).toContain('  key (id) on the source: not checked: 0 row(s), 0 distinct, 0 null, 0 repeated key(s) (0 extra row(s)); no source given');
    expect(t).toContain('  candidate keys: none (no column or pair is unique and never null)');
    expect(t).toContain('  cust -> ../customers id (many-to-one, found one-to-one): failed: 9 row(s), 0 null, 2 dangling row(s) in 1 value(s): cust=<9>; a | note');
    expect(t).toContain('  sku -> ../skus sku (one-to-one): confirmed: 9 row(s), 0 null, 0 dangling row(s) in 0 value(s)');
    expect(keysLines({ ...keys, candidates: [{ columns: ['a', 'b'], approxDistinct: 9, exact: true }] }).at(-3)).toBe('  candidate keys (no key declared): (a, b)');
    expect(keysLines({ ...keys, candidates: null }).some((l) => l.includes('candidate'))).toBe(false);
  });

  it('markdown and HTML carry the same checks, escaped', () => {
    const m = keysMarkdown(keys);
    expect(m).toContain('| key (id) on the table | failed | 10 rows, 1 null, 1 repeated: id=3 x2 in dt=2026-08-12/part-1.parquet#4 (v7 2026-08-12T09:00:00Z WRITE by spark <3.5>) |');
    expect(m).toContain('| cust -> id | failed | 2 dangling: cust=<9>; a \\| note |');
    expect(m).toContain('| candidate keys | inferred | none |');
    const h = keysHtml(keys);
    expect(h).toContain('cust=&lt;9&gt;');
    expect(h).toContain('spark &lt;3.5&gt;');
    expect(h).not.toContain('<9>');
  });
});

const laws: LawsResult = {
  table: '/t', version: 7, source: '/s', day: { column: 'dt', sourceExpression: "date(ts AT TIME ZONE 'UTC')" },
  laws: [
    { law: 'row count', measure: null, kind: 'row_count', proposed: false, tolerance: null, holds: false, days: 6, failedDays: 1, failures: [{ day: '2026-08-12', source: '900', target: '1800', difference: '900' }, { day: null, source: '0', target: '1', difference: '1' }] },
    { law: 'sum(amount)', measure: 'amount', kind: 'float_sum', proposed: true, tolerance: 1e-9, holds: true, days: 6, failedDays: 0, failures: [] },
  ],
  late: null, summary: { held: 1, broken: 1 }, notes: ['late | days left out'], durationMs: 1,
};

describe('data laws', () => {
  it('text, markdown and HTML: the broken law with its days, the proposed one, the notes', () => {
    const t = lawsLines(laws);
    expect(t[0]).toBe("Data laws, /s -> /t @ v7: 1 held, 1 broken (per dt; source day = date(ts AT TIME ZONE 'UTC'))");
    expect(t).toContain('  BROKEN  row count: 5 of 6 day(s)');
    expect(t).toContain('          2026-08-12: source 900, target 1800, difference 900');
    expect(t).toContain('          (null): source 0, target 1, difference 1');
    expect(t).toContain("  holds   sum(amount) (proposed) (tolerance 1e-9 x the day's sum of magnitudes): 6 of 6 day(s)");
    expect(lawsLines({ ...laws, day: { column: null, sourceExpression: null } })[0]).toContain('(per table)');
    const m = lawsMarkdown(laws);
    expect(m).toContain('| row count | **no** | 5 of 6 | 2026-08-12: 900 -> 1800 (900); (null): 0 -> 1 (1) |');
    expect(m).toContain('| sum(amount) (proposed) | yes | 6 of 6 | - |');
    expect(m).toContain('- late \\| days left out');
    const h = lawsHtml(laws);
    expect(h).toContain('<td><strong>no</strong></td>');
    expect(h).toContain('<li>late | days left out</li>');
    expect(lawsHtml({ ...laws, notes: [] })).not.toContain('<ul>');
  });
});

describe('rows behind the findings', () => {
  const diff = (d: Partial<RowDiff>): RowDiff => ({ kind: 'duplicated', key: { id: '3' }, source: null, target: null, changedColumns: [], ...d } as RowDiff);
  const diffs = [
    diff({ targetFile: 'a.parquet', targetRows: [where, { file: 'b.parquet', row: null, commit: null }] }),
    diff({ kind: 'changed', key: { id: null } as never, targetFile: 'c.parquet', targetRow: 9, targetCommit: commit }),
    diff({ kind: 'missing', targetFile: 'd.parquet', targetRow: null }),
    diff({ kind: 'missing' }),
  ];

  it('each target row with its file, row and commit; a diff without a target file left out', () => {
    const t = rowsBehindLines(diffs);
    expect(t[0]).toBe('Rows behind the findings (target side):');
    expect(t).toContain('  duplicated id=3: 2 rows');
    expect(t).toContain('            b.parquet (commit unknown)');
    expect(t).toContain('  changed   id=null: c.parquet#9, v7 2026-08-12T09:00:00Z WRITE by spark <3.5>');
    expect(t).toContain('  missing   id=3: d.parquet, commit unknown');
    expect(t).toHaveLength(6);
    const m = rowsBehindMarkdown(diffs);
    expect(m.split('\n').filter((l) => l.startsWith('| duplicated'))).toHaveLength(2);
    expect(m).toContain('| changed | id=null | c.parquet | 9 | v7 2026-08-12T09:00:00Z WRITE by spark <3.5> |');
    expect(rowsBehindHtml(diffs)).toContain('spark &lt;3.5&gt;');
    for (const f of [rowsBehindLines, rowsBehindMarkdown, rowsBehindHtml]) expect((f as (d: RowDiff[]) => unknown)([diff({})])).toEqual(f === rowsBehindLines ? [] : '');
    expect(provenanceText({ file: 'x', row: 0, commit: { ...commit, timestamp: null, operation: null, writer: null, fromCheckpoint: true } })).toBe('x#0 (v7 (known from a checkpoint))');
  });
});
