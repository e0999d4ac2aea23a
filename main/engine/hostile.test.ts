// The hostile corpus in-process, through the engine and the service the web API calls: a type or
// partition expression that is SQL is refused with a named error, and no injected SQL runs (the
// canary files never appear, the secret is never read).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toErrorData } from '../../shared/errors';
import { createService } from '../app/service';
import { readContractFile } from '../reconcile/contract';
import { reconcile } from '../reconcile/reconcile';
import { buildHostileCorpus, type HostileCorpus } from '../testing/hostile-corpus';

let dir: string;
let corpus: HostileCorpus;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-hostile-engine-'));
  corpus = await buildHostileCorpus(join(dir, 'corpus'));
}, 60_000);
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

async function outcome(p: Promise<unknown>): Promise<string> {
  try { await p; return 'ok'; } catch (e) { const d = toErrorData(e); return `${d.code}: ${d.message}`; }
}

it('refuses SQL in a column type or a partition expression, in the engine and through the service', async () => {
  const service = createService({ mode: 'web', userDataDir: join(dir, 'userdata') });
  const ctx = { signal: new AbortController().signal };
  const want: Record<string, RegExp> = {
    'a SQL statement as a column type': /^unsupported_feature: column type "BIGINT\); COPY/,
    'a partition expression that chains a statement': /^contract_invalid: .*partition expression refused: not a single SQL expression \(syntax error/,
    'a partition expression followed by a second statement': /^contract_invalid: .*partition expression refused: (one expression only|not a single SQL expression \(Only SELECT)/,
    'a partition expression with a subquery reading a file': /^contract_invalid: .*partition expression refused: a subquery is not allowed/,
    'a partition expression calling functions outside the allow list': /^contract_invalid: .*function getenv\(\) is not allowed.*function current_setting\(\) is not allowed/,
  };
  for (const [name, re] of Object.entries(want)) {
    const c = corpus.cases.find((x) => x.name === name)!;
    for (const level of ['schema', 'rows'] as const) {
      expect(await outcome(reconcile({ source: c.source, target: { root: c.table }, contract: c.contract, level })), `${name} ${level}`).toMatch(re);
      // the web API's path: the service, with the contract as text (edited: the user's own)
      const text = readContractFile(c.contract) + '# edited\n';
      expect(await outcome(service.reconcile({ source: c.source, table: c.table, contract: text, level }, ctx)), `${name} ${level} (service)`).toMatch(re);
    }
  }
  for (const canary of corpus.canaries) expect(existsSync(canary), canary).toBe(false);
}, 120_000);
