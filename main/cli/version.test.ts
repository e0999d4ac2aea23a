// One version, package.json's: the CLI, the window's appInfo and the writer's engineInfo say it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WRITER_ENGINE_INFO } from '../writer';
import { runCli } from './main';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('the version', () => {
  it('is package.json\'s everywhere', async () => {
    const out: string[] = [];
    expect(await runCli(['--version'], { out: (t) => out.push(t), err: () => {}, cwd: process.cwd(), env: {} })).toBe(0);
    expect(out.join('')).toBe(`${pkg.version}\n`);
    expect(WRITER_ENGINE_INFO).toBe(`lakerec/${pkg.version}`);
  });
});
