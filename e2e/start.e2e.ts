// `npm start` where Electron's binary is missing: it must fall back to web mode, print the URL,
// serve the table, and refuse a request without the token. Runs the real launcher
// (main/bin/start.mjs) as `npm start` does.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixtures, repoRoot, startWebMode, type Fixtures } from './helpers';

describe('npm start without an Electron window', () => {
  let fx: Fixtures;
  let server: Awaited<ReturnType<typeof startWebMode>>;

  beforeAll(async () => {
    fx = await makeFixtures();
    // With Electron's binary installed and a display, this launcher opens a window instead;
    // DISPLAY is cleared so the fallback is what runs on every machine.
    server = await startWebMode([fx.table], fx.userData, join(repoRoot, 'main', 'bin', 'start.mjs'), {
      LAKEREC_SKIP_ELECTRON_INSTALL: '1', DISPLAY: '', WAYLAND_DISPLAY: '',
    });
  });

  afterAll(async () => {
    await server?.stop();
    if (fx) rmSync(fx.dir, { recursive: true, force: true });
  });

  it('says why it serves web mode and prints a loopback URL carrying the token', () => {
    expect(server.output()).toMatch(/starting web mode instead/);
    expect(server.output()).toMatch(/open: http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{40,}/);
    expect(server.output()).toContain(`table: ${fx.table}`);
  });

  it('serves the table named on the command line, and only with the token', async () => {
    const call = (headers: Record<string, string>) => fetch(`${server.origin}/api/listVersions`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ path: fx.table }),
    });
    expect((await call({})).status).toBe(401);
    const ok = await call({ authorization: `Bearer ${server.token}` });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { ok: true; value: { versions: { version: number }[] } };
    expect(body.value.versions.map((v) => v.version)).toEqual([3, 2, 1, 0]);
    const info = await fetch(`${server.origin}/api/appInfo`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` }, body: '{}',
    });
    expect(await info.json()).toMatchObject({ ok: true, value: { mode: 'web', initialTable: fx.table, canPickFolder: false } });
  });
});

describe('the launcher stops cleanly on a signal', () => {
  let fx: Fixtures;
  beforeAll(async () => { fx = await makeFixtures(); });
  afterAll(() => { if (fx) rmSync(fx.dir, { recursive: true, force: true }); });

  // Running (a zombie waiting for init to reap it has ended already).
  const alive = (pid: number) => {
    try { return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return false; }
  };
  const gone = async (pid: number) => {
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    return !alive(pid);
  };

  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
    it(`${signal}: the server stops (its token dies), the engine processes end, the upload folder goes`, async () => {
      const server = await startWebMode([fx.table], fx.userData, join(repoRoot, 'main', 'bin', 'lakerec-workbench.mjs'), {
        LAKEREC_SKIP_ELECTRON_INSTALL: '1', DISPLAY: '', WAYLAND_DISPLAY: '',
      });
      const auth = { authorization: `Bearer ${server.token}` };
      // a call (starts the engine processes) and an upload (makes the upload folder)
      const call = await fetch(`${server.origin}/api/listVersions`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ path: fx.table }) });
      expect(call.status).toBe(200);
      const up = await fetch(`${server.origin}/api/upload?name=s.csv`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', ...auth }, body: 'a,b\n1,2\n' });
      const uploaded = ((await up.json()) as { value: { path: string } }).value.path;
      const uploadDir = dirname(dirname(uploaded));
      expect(uploadDir).toMatch(new RegExp(`lakerec-uploads-${server.child.pid}-`));
      const engines = execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.child.pid)], { encoding: 'utf8' }).split('\n').map(Number).filter((n) => n > 0);
      expect(engines.length).toBeGreaterThanOrEqual(1);
      const exited = new Promise<void>((r) => server.child.once('exit', () => r()));
      server.child.kill(signal);
      await exited;
      await expect(fetch(`${server.origin}/api/appInfo`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: '{}' })).rejects.toThrow();
      expect(existsSync(uploadDir)).toBe(false);
      for (const pid of engines) expect(await gone(pid), `engine ${pid}`).toBe(true);
    });
  }
});
