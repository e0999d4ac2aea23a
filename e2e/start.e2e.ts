// `npm start` where Electron's binary is missing: it must fall back to web mode, print the URL,
// serve the table, and refuse a request without the token. Runs the real launcher
// (main/bin/start.mjs) as `npm start` does.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
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
