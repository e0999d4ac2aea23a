import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareExamples, EXAMPLE_FILES } from './generate';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

function folder(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'lakerec-examples-cmp-'));
  dirs.push(d);
  mkdirSync(d, { recursive: true });
  for (const [f, t] of Object.entries(files)) writeFileSync(join(d, f), t);
  return d;
}

describe('the published examples are current', () => {
  const a = 'took 0.42 s; added part-00000-40e7e3a5-5468-4b62-b3b6-637317747c3a-c000.snappy.parquet; 900 rows';
  const b = 'took 1.07 s; added part-00000-bdaaf908-6bb1-4a7d-b473-5146bfa330d5-c000.snappy.parquet; 900 rows';
  const all = (t: string) => Object.fromEntries(EXAMPLE_FILES.map((f) => [f, t]));

  it('ignoring only the run time and the data files\' UUIDs', () => {
    expect(compareExamples(folder(all(a)), folder(all(b)))).toEqual([]);
  });

  it('not when a figure differs, a file is missing, or a stray file is published', () => {
    const published = folder({ ...all(a), 'old.html': 'x' });
    const fresh = folder(all(a.replace('900 rows', '901 rows')));
    const problems = compareExamples(published, fresh);
    expect(problems).toContain(`docs/examples/${EXAMPLE_FILES[0]}: not current (run npm run examples)`);
    expect(problems).toContain('docs/examples/old.html: not made by the generator (remove it or add it to main/examples/generate.ts)');
    expect(compareExamples(folder({}), fresh)[0]).toMatch(/missing/);
  });
});
