// The repository's own documents, copied to a scratch folder with the measurement files and the
// source files whose constants they quote: unmodified they pass the receipts check; each edit
// the issue names (a UI constant, a detection-matrix count, an ADR figure, a new untied number,
// an experiment figure) makes it fail, naming the file and line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { collectMetrics, SOURCE_CONSTANTS } from './metrics';
import { checkRepo, formatUntied } from './check';
import { formatViolation } from '../../shared/receipts';

const repo = resolve(__dirname, '..', '..');
let copy: string;

function copyRepoDocs(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-receipts-docs-'));
  // Pictures and the recording are not read by the check; everything else under docs/ is.
  cpSync(join(repo, 'docs'), join(dir, 'docs'), { recursive: true, filter: (p) => !/[\\/]docs[\\/](screenshots|demo)([\\/]|$)/.test(p) });
  cpSync(join(repo, 'README.md'), join(dir, 'README.md'));
  for (const c of SOURCE_CONSTANTS) {
    mkdirSync(dirname(join(dir, c.file)), { recursive: true });
    cpSync(join(repo, c.file), join(dir, c.file));
  }
  return dir;
}

function failures(root: string): string[] {
  const r = checkRepo(root, collectMetrics(root));
  return [...r.violations.map(formatViolation), ...r.untied.map(formatUntied), ...r.problems.map((p) => `${p.file}:${p.line}: ${p.message}`)];
}

function edit(root: string, file: string, from: string, to: string): () => void {
  const p = join(root, file);
  const before = readFileSync(p, 'utf8');
  if (!before.includes(from)) throw new Error(`${file} does not contain "${from}" any more: update this test`);
  writeFileSync(p, before.replace(from, to));
  return () => writeFileSync(p, before);
}

beforeAll(() => { copy = copyRepoDocs(); });
afterAll(() => { if (copy) rmSync(copy, { recursive: true, force: true }); });

describe('receipts over the real documents', () => {
  it('pass as committed: every number is a measured claim or marked not-measured', () => {
    expect(failures(copy)).toEqual([]);
  });

  const cases: Array<{ name: string; file: string; from: string; to: string; expect: RegExp }> = [
    { name: 'README "at most 240 bars" changed to 999', file: 'README.md', from: 'at most 240 bars', to: 'at most 999 bars', expect: /README\.md:\d+: code\.timeline\.max_bars: claimed "is drawn as at most 999 bars" measured 240/ },
    { name: 'the detection matrix "13 of 13" changed to "12 of 13"', file: 'docs/detection-matrix.md', from: '13 of 13 corruptions', to: '12 of 13 corruptions', expect: /docs\/detection-matrix\.md:\d+: not what npm run matrix renders/ },
    { name: 'an ADR figure changed', file: 'docs/adr/0001-checksum-sum-mod-2-128.md', from: '| md5 of canonical text (`md5-canonical-v1`) | the data alone | ', to: '| md5 of canonical text (`md5-canonical-v1`) | the data alone | 0.1x | 0.1x |', expect: /0001-checksum-sum-mod-2-128\.md:\d+: bench_published\.reconcile\.digest\.md5\.ratio/ },
    { name: 'a new number nobody registered', file: 'docs/bisect.md', from: '\n', to: '\nIt now answers in 42 ms.\n', expect: /docs\/bisect\.md:2: "42" is neither a measured claim nor marked not-measured/ },
    { name: 'an experiment figure changed on the page', file: 'docs/experiments.md', from: 'different naive sums', to: 'different naive sums (or 3)', expect: /docs\/experiments\.md:\d+: not what npm run experiments renders/ },
    { name: 'a README figure that an experiment measures', file: 'README.md', from: 'a binary search of 8 probes', to: 'a binary search of 6 probes', expect: /binary_probes: claimed "a binary search of 6 probes" measured 8/ },
  ];
  for (const c of cases) {
    it(`fail when ${c.name}`, () => {
      const undo = edit(copy, c.file, c.from, c.to);
      try {
        const f = failures(copy);
        expect(f.join('\n')).toMatch(c.expect);
      } finally {
        undo();
      }
    });
  }
});
