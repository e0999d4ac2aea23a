// Every kind of job that makes a temp folder, SIGKILLed while it runs (no exit hook, no signal
// handler can run): the folder stays behind, holding copies of the user's data, until the next
// start of any lakerec process removes it. A live process's folder is never removed; a folder
// whose pid was given again to another process (the start time differs) is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeTempDir, removeTempDir, TEMP_KINDS } from './tempdirs';

const repo = resolve(__dirname, '..', '..');
const bin = join(repo, 'main', 'bin', 'lakerec.mjs');
const lake = join(repo, 'sample-lakes', 'built', 'double_load');
const renderer = join(repo, 'dist', 'renderer', 'index.html');
let parent: string;

beforeAll(() => { parent = mkdtempSync(join(tmpdir(), 'lakerec-crash-test-')); });
afterAll(() => { if (parent) rmSync(parent, { recursive: true, force: true }); });

const env = () => ({ ...process.env, TMPDIR: parent, LAKEREC_DATA_DIR: join(parent, 'data'), LAKEREC_DEBUG: '' });

/** Starts `args`, waits for its `kind` folder to appear, SIGKILLs it; returns the folder left. */
async function killWhileRunning(kind: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, args, { env: env(), stdio: ['ignore', 'ignore', 'pipe'], cwd: parent });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => { stderr += c.toString(); });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let ended = false;
  void exited.then(() => { ended = true; });
  const prefix = `lakerec-${kind}-${child.pid}-`;
  const deadline = Date.now() + 60_000;
  let found: string | undefined;
  while (!found && !ended && Date.now() < deadline) {
    found = readdirSync(parent).find((n) => n.startsWith(prefix));
    if (!found) await new Promise((r) => setTimeout(r, 5));
  }
  if (!found) {
    child.kill('SIGKILL');
    throw new Error(`no ${prefix}* folder appeared before the job ${ended ? 'ended' : 'timed out'} (${stderr.trim()})`);
  }
  child.kill('SIGKILL');
  await exited;
  expect(child.signalCode).toBe('SIGKILL');
  return join(parent, found);
}

/** The next start of lakerec (any command) in the same temp folder. */
function nextStart(): void {
  const r = spawnSync(process.execPath, [bin, 'history', join(lake, 'table')], { env: env(), encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
}

const jobs: { kind: string; args: () => string[]; needs?: string }[] = [
  { kind: 'duck', args: () => [bin, 'reconcile', join(lake, 'source'), join(lake, 'table'), '--contract', join(lake, 'contract.yaml')] },
  { kind: 'mutate', args: () => [bin, 'mutate', join(lake, 'source'), join(lake, 'table'), '--contract', join(lake, 'contract.yaml')] },
  { kind: 'proof', args: () => [bin, 'proof', '--engines', 'duckdb,arrow'] },
  { kind: 'uploads', args: () => [join(repo, 'dist', 'main', 'web.js'), '--no-open', '--port', '0', '--user-data', join(parent, 'user')], needs: renderer },
];

describe('temp folders after a SIGKILL', () => {
  it('every kind the product makes is one the cleanup knows', () => {
    expect([...TEMP_KINDS].sort()).toEqual(expect.arrayContaining(jobs.map((j) => j.kind).sort()));
  });

  for (const job of jobs) {
    it(`a SIGKILLed ${job.kind} job: its folder is removed by the next start`, async (t) => {
      if (!existsSync(join(lake, 'table', '_delta_log'))) t.skip();
      if (job.needs && !existsSync(job.needs)) {
        process.stdout.write(`skipped: ${job.kind} needs ${job.needs} (npm run build)\n`);
        t.skip();
      }
      const left = await killWhileRunning(job.kind, job.args());
      expect(existsSync(left)).toBe(true);
      // A live process's folder (this test's own) is kept; a reused pid's (another start) is not.
      const mine = makeTempDir('mutate', parent);
      const reused = join(parent, `lakerec-proof-${process.pid}-k1-abcdef`);
      mkdirSync(reused);
      nextStart();
      expect(existsSync(left)).toBe(false);
      expect(existsSync(mine)).toBe(true);
      if (existsSync('/proc/self/stat')) expect(existsSync(reused)).toBe(false);
      removeTempDir(mine);
      rmSync(reused, { recursive: true, force: true });
    }, 120_000);
  }
});
