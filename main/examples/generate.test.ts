// The published examples (docs/examples/) are what the generator makes now: a change to the
// incident report or to bisect's text that is not regenerated fails here, not only in verify.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { compareExamples, EXAMPLE_FILES, generateExamples } from './generate';

const out = mkdtempSync(join(tmpdir(), 'lakerec-examples-gen-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm run examples', () => {
  it('writes both files, with no scratch path in them, equal to the published ones', async () => {
    const files = await generateExamples(out);
    expect(files).toEqual(EXAMPLE_FILES.map((f) => join(out, f)));
    const md = readFileSync(files[1], 'utf8');
    expect(md).toContain('$ lakerec bisect sample-lakes/built/double_load/table --predicate unique-keys --keys order_id');
    expect(md).not.toContain(tmpdir());
    expect(readFileSync(files[0], 'utf8')).not.toContain(tmpdir());
    expect(compareExamples(resolve(__dirname, '..', '..', 'docs', 'examples'), out)).toEqual([]);
  });
});
