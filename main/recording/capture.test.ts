// The recorder over the real bin (dist is built by the test run's global setup): what a command
// prints lands in the cast as it was printed, with its exit code and wall time in the manifest.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { asciicast, capture, parseCast } from './capture';
import { screenAt } from './render';

const bin = join(resolve(__dirname, '..', '..'), 'main', 'bin', 'lakerec.mjs');

describe('recording real runs', () => {
  it('captures stdout and stderr with their times, exit codes and the scratch folder as $LAKE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lakerec-rec-'));
    try {
      const c = await capture([
        { title: 'help', why: 'the commands', argv: ['--help'], cwd: dir, expectExit: 0 },
        { title: 'a wrong call', why: 'exit 2', argv: ['bisect', join(dir, 'nowhere')], cwd: dir, expectExit: 2 },
      ], { bin, scratch: dir });
      expect(c.manifest.map((m) => [m.title, m.exitCode, m.expectedExit])).toEqual([['help', 0, 0], ['a wrong call', 2, 2]]);
      expect(c.manifest[1].command).toBe('lakerec bisect $LAKE/nowhere');
      expect(c.manifest.every((m) => m.wallSeconds > 0 && m.startedAt >= 0)).toBe(true);
      const text = c.events.map((e) => e[2]).join('');
      expect(text).toContain('lakerec: forensic workbench for Delta Lake tables');
      expect(text).toMatch(/lakerec bisect: .*usage/);
      expect(text).not.toContain(dir);
      // times never go backwards, and the file reads back as asciicast v2
      expect(c.events.every((e, i) => i === 0 || e[0] >= c.events[i - 1][0])).toBe(true);
      const cast = asciicast(c, { width: 100, height: 30, title: 't', timestamp: 0 });
      const back = parseCast(cast);
      expect(back.header).toMatchObject({ version: 2, width: 100, height: 30 });
      expect(back.events).toEqual(c.events);
      expect(screenAt(back.events, back.events.length, 3).split('\n')).toHaveLength(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
