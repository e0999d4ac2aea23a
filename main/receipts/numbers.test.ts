import { describe, expect, it } from 'vitest';
import { findNumbers, scanMarkers } from './numbers';
import { untiedNumbers } from './check';

const texts = (md: string) => findNumbers(md).map((n) => n.text);

describe('the numbers a document states', () => {
  it('finds prose numbers in the forms prose writes them', () => {
    expect(texts('All 13 corruptions, 5,400 rows, 28.3% of them, 1.5–3.0x the time, 10M rows, a 300,000-file log, at v7, ~6e-14.'))
      .toEqual(['13', '5,400', '28.3%', '1.5–3.0x', '10M', '300,000-file', 'v7', '~6e-14']);
  });

  it('skips code blocks, inline code, link targets, URLs, comments, and names with digits', () => {
    const md = [
      'Run `lakerec bisect --keys 42` and see [ADR](docs/adr/0007-electron-40.md) or https://example.com/v2/123.',
      '```sh', 'npm run bench -- --rows 999', '```',
      '<!-- 77 in a comment --> md5, sha256, dt=2026-08-12, U+0301, 124-decimal-decode-bug and `x 9`.',
    ].join('\n');
    expect(texts(md)).toEqual(['124-decimal-decode-bug']);
  });

  it('gives the line of each number', () => {
    expect(findNumbers('a\n\nb 12 c\n').map((n) => [n.text, n.line])).toEqual([['12', 3]]);
  });
});

describe('marking a number as not a measurement', () => {
  const reg = { claims: [], notMeasured: [{ pattern: String.raw`\bADR \d{4}`, why: 'an ADR number' }] };

  it('an inline marker covers the numbers before it on its line, not after it', () => {
    const md = 'Ports 80 and 443 <!-- not-measured: protocol constants --> but 17 ms is a timing.\nNext line 5.';
    expect(untiedNumbers('x.md', md, reg).untied.map((n) => n.text)).toEqual(['17', '5']);
  });

  it('a block covers every number in it; a pattern covers its matches', () => {
    const md = 'See ADR 0004.\n<!-- not-measured:begin the example table -->\n| 1 | 2 |\n<!-- not-measured:end -->\nand 3.';
    expect(untiedNumbers('x.md', md, reg).untied.map((n) => n.text)).toEqual(['3']);
  });

  it('a marker without a reason, or a block never closed, is itself a problem', () => {
    expect(scanMarkers('1 <!-- not-measured: -->').problems[0].message).toMatch(/needs a reason/);
    expect(scanMarkers('<!-- not-measured:begin why -->\n1').problems[0].message).toMatch(/never closed/);
  });

  it('a measured claim accounts for the numbers inside its phrase only', () => {
    const r = untiedNumbers('README.md', 'All 13 corruptions are named at some level, 7 of them.', {
      claims: [{ metric: 'matrix.named', phrase: 'All {n} corruptions are named', files: ['README.md'] }], notMeasured: [],
    });
    expect(r.untied.map((n) => n.text)).toEqual(['7']);
  });
});
