// A contract.yaml that came with a table is shown as the table's and is not run until the user
// accepts it once; the acceptance is kept per real path and content hash in the app-data folder.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiHandlers } from '../../shared/api';
import { buildHostileCorpus, type HostileCorpus } from '../testing/hostile-corpus';
import { createService } from './service';

let dir: string;
let corpus: HostileCorpus;
let service: ApiHandlers;
const ctx = { signal: new AbortController().signal };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-contract-trust-'));
  corpus = await buildHostileCorpus(join(dir, 'lake'));
  service = createService({ mode: 'web', userDataDir: join(dir, 'userdata') });
}, 60_000);
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

async function code(p: Promise<unknown>): Promise<string> {
  try { await p; return 'ok'; } catch (e) { return `${(e as { code: string }).code}: ${(e as Error).message}`; }
}

it('does not run a contract found beside the table until it is accepted, and remembers the acceptance by content', async () => {
  const clean = corpus.cases[0];
  const c = await service.defaultContract({ path: clean.table }, ctx);
  expect(c).toMatchObject({ origin: 'file', path: clean.contract, accepted: false });
  const req = { source: clean.source, table: clean.table, contract: c.text, level: 'counts' as const };
  expect(await code(service.reconcile(req, ctx))).toMatch(/^usage: The contract comes from the table's folder \(.*contract\.yaml\) and has not been accepted/);
  // An edit makes it the user's own text: it runs.
  expect(await code(service.reconcile({ ...req, contract: c.text + '# reviewed\n' }, ctx))).toBe('ok');
  // Accepting another content than the file's is refused.
  expect(await code(service.acceptContract({ path: c.path!, sha256: '0'.repeat(64) }, ctx))).toMatch(/^usage: The contract .* changed since it was shown/);
  expect(await service.acceptContract({ path: c.path!, sha256: c.sha256 }, ctx)).toEqual({ accepted: true });
  expect(await service.defaultContract({ path: clean.table }, ctx)).toMatchObject({ accepted: true });
  expect(await code(service.reconcile(req, ctx))).toBe('ok');
  // A new service (a new launch) remembers it; a changed file must be accepted again.
  const next = createService({ mode: 'web', userDataDir: join(dir, 'userdata') });
  expect(await next.defaultContract({ path: clean.table }, ctx)).toMatchObject({ accepted: true });
  writeFileSync(clean.contract, c.text + 'ignore: []\n');
  const changed = await next.defaultContract({ path: clean.table }, ctx);
  expect(changed.accepted).toBe(false);
  expect(await code(next.reconcile({ ...req, contract: changed.text }, ctx))).toMatch(/has not been accepted/);
}, 60_000);

it('validateContract lists every problem on its own line', async () => {
  const r = await service.validateContract({ text: 'version: 2\nkeys: [id]\nkyes: [x]\n' }, ctx);
  expect(r).toEqual({ ok: false, summary: null, problems: [
    { line: 1, message: 'version: must be 1' },
    { line: 3, message: 'the contract: unknown field "kyes"' },
  ] });
});
