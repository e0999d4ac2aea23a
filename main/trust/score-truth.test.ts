// A mutation score names the level it was computed at, or is refused with the reason when the
// unmutated table already diverges (issue 25): one headline in the result, the CLI text and the tab.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMutation } from './mutate';
import { mutationLines, mutationMarkdown } from './report';

const built = resolve(__dirname, '..', '..', 'sample-lakes', 'built');
const have = existsSync(join(built, 'double_load', 'table', '_delta_log')) && existsSync(join(built, 'control', 'table', '_delta_log'));
if (!have) process.stdout.write('score-truth.test: SKIPPED: sample lakes not built (npm run sample-lakes)\n');
const lake = (name: string) => ({ source: join(built, name, 'source', 'orders.parquet'), table: join(built, name, 'table'), contract: join(built, name, 'contract.yaml') });

describe.skipIf(!have)('the score and its level', () => {
  it('refused, with the reason, when the table already diverges without a mutant', async () => {
    const r = await runMutation({ ...lake('double_load'), only: ['missing_rows', 'extra_rows'], levels: ['schema', 'counts'] });
    expect(r.baseline.map((b) => [b.level, b.verdict])).toEqual([['schema', 'matches'], ['counts', 'diverges']]);
    expect(r.overall.score).toBeNull();
    expect(r.overall.level).toBeNull();
    expect(r.overall.refused).toMatch(/already diverges from the source at counts .*fix the data first/);
    expect(r.overall.headline).toBe(`no score: ${r.overall.refused}`);
    const text = mutationLines(r).join('\n');
    expect(text).toContain(r.overall.headline);
    expect(text).not.toMatch(/killed at/);
    expect(mutationMarkdown(r)).not.toMatch(/killed at/);
  }, 120_000);

  it('names the level it was computed at', async () => {
    const r = await runMutation({ ...lake('control'), only: ['missing_rows', 'extra_rows'], levels: ['schema', 'counts'] });
    expect(r.overall.refused).toBeNull();
    expect(r.overall.level).toBe('counts');
    expect(r.overall.score).toBe(1);
    expect(r.overall.headline).toBe('score 100%: 2 of 2 mutant(s) killed at counts; 2 named as their mode (100%)');
    expect(mutationLines(r).join('\n')).toContain(r.overall.headline);
  }, 120_000);
});
