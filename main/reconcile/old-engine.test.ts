// Results at rows level equal the old engine's on every sample lake: the same findings, keys and
// example rows. old-engine/rows-level.json was written by this file from the engine as it was
// before the speed work (commit 783af96), with
//   LAKEREC_CAPTURE_OLD_ENGINE=1 npx vitest run main/reconcile/old-engine.test.ts
// and is compared, not rewritten, on every other run. Lakes are built small (600 rows, the
// default seed), so their rows are the same every build.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSampleLakes, type BuiltLake } from '../../sample-lakes/build';
import { ALL_LAKES } from '../../sample-lakes/scenarios';
import { reconcile } from './reconcile';
import { normaliseResult, type NormalisedResult } from './old-engine/normalise';

const FIXTURE = join(__dirname, 'old-engine', 'rows-level.json');
const capture = !!process.env.LAKEREC_CAPTURE_OLD_ENGINE;
// Many small versions: slow to build and the same engine paths as the others.
const NAMES = ALL_LAKES.map((s) => s.name).filter((n) => n !== 'bisect_many_versions');

let dir: string;
let lakes: BuiltLake[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-old-engine-'));
  lakes = await buildSampleLakes({ out: dir, rows: 600, only: NAMES });
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('rows level equals the old engine on every sample lake', () => {
  const out: Record<string, NormalisedResult> = {};
  const old: Record<string, NormalisedResult> = !capture && existsSync(FIXTURE) ? JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, NormalisedResult> : {};
  for (const name of NAMES) {
    it(name, async () => {
      const lake = lakes.find((l) => l.name === name)!;
      const r = await reconcile({ source: lake.sourceParquet, target: { root: lake.tablePath }, contract: lake.contractPath, level: 'rows' });
      const now = normaliseResult(r);
      out[name] = now;
      if (!capture) expect(now).toEqual(old[name]);
    });
  }
  afterAll(() => {
    if (capture) writeFileSync(FIXTURE, JSON.stringify(out, null, 1) + '\n');
  });
});
