// Web mode's launch: a wrong command line (exit 2) and a missing renderer build (exit 3) each get
// one line before any server starts; the system browser is only tried where there is a display.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openBrowser, runWebMode } from './web-main';

const root = mkdtempSync(join(tmpdir(), 'lakerec-web-main-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => { vi.restoreAllMocks(); vi.unstubAllEnvs(); });

/** Runs the launch until it exits; returns the exit code and what it wrote on stderr. */
async function launch(argv: string[]): Promise<{ code: number | undefined; err: string }> {
  let err = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((t: string | Uint8Array) => { err += String(t); return true; });
  const exit = vi.spyOn(process, 'exit').mockImplementation(((code?: number) => { throw Object.assign(new Error('exit'), { exitCode: code }); }) as never);
  mkdirSync(join(root, 'dist', 'main'), { recursive: true });
  const entry = pathToFileURL(join(root, 'dist', 'main', 'web.js')).href;
  try {
    await runWebMode(argv, entry);
  } catch (e) {
    if ((e as Error).message !== 'exit') throw e;
  }
  return { code: exit.mock.calls[0]?.[0] as number | undefined, err };
}

describe('launching web mode', () => {
  it('two folders, or an unknown flag: the reason and the usage, exit 2', async () => {
    const two = await launch(['a', 'b']);
    expect(two).toEqual({ code: 2, err: 'lakerec web: give at most one folder\nusage: lakerec-workbench --web [FOLDER] [--sample] [--port N] [--no-open] [--user-data DIR]\n' });
    const flag = await launch(['--prot', '8080']);
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(/^lakerec web: unknown flag --prot\n/);
  });

  it('no renderer build beside the entry: one line naming it, exit 3', async () => {
    const r = await launch(['--user-data', join(root, 'data'), '--no-open']);
    expect(r.code).toBe(3);
    expect(r.err).toBe(`lakerec web: the renderer is not built (${join(root, 'dist', 'renderer')}); run \`npm run build\`.\n`);
  });
});

describe('the system browser', () => {
  it('not tried without a display, nor when xdg-open is not on the PATH', () => {
    if (process.platform !== 'linux') return;
    vi.stubEnv('DISPLAY', '');
    vi.stubEnv('WAYLAND_DISPLAY', '');
    expect(openBrowser('http://127.0.0.1:1/')).toBe(false);
    vi.stubEnv('DISPLAY', ':0');
    vi.stubEnv('PATH', join(root, 'empty-bin'));
    expect(openBrowser('http://127.0.0.1:1/')).toBe(false);
  });
});
