// The data laws honour the contract's lateness allowance by the reconcile's own rule: a day not
// loaded yet within the allowance is late (and said so), not a broken law beside a `matches`.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reconcile } from '../reconcile/reconcile';
import { checkLaws } from './laws';
import { lawsLines } from './report';

const built = resolve(__dirname, '..', '..', 'sample-lakes', 'built');
const have = existsSync(join(built, 'late_arriving', 'table', '_delta_log'));
if (!have) process.stdout.write('laws-late.test: SKIPPED: sample lakes not built (npm run sample-lakes)\n');

describe.skipIf(!have)('laws and lateness', () => {
  it('a late day within the allowance is left out of every law, and the laws say so', async () => {
    const l = join(built, 'late_arriving');
    const opts = { source: join(l, 'source', 'orders.parquet'), contract: join(l, 'contract.yaml') };
    const r = await reconcile({ ...opts, target: { root: join(l, 'table') }, level: 'checksum' });
    expect(r.verdict).toBe('matches');
    const late = r.findings.find((f) => f.mode === 'late_arriving');
    expect(late).toBeDefined();
    const laws = await checkLaws({ ...opts, table: join(l, 'table') });
    expect(laws.summary.broken).toBe(0);
    expect(laws.late?.days.map((d) => `dt=${d}`)).toEqual(late!.evidence.partitions);
    expect(lawsLines(laws).join('\n')).toMatch(/not loaded into the table yet, within the contract's lateness allowance \(1 day\)/);
  }, 60_000);

  it('a day the table once held and lost is still a broken law', async () => {
    const l = join(built, 'partition_wipe');
    const laws = await checkLaws({ source: join(l, 'source', 'orders.parquet'), contract: join(l, 'contract.yaml'), table: join(l, 'table') });
    expect(laws.late).toBeNull();
    expect(laws.summary.broken).toBeGreaterThan(0);
  }, 60_000);
});
