import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCast, type CastEvent } from './capture';
import { renderVideo, screenAt } from './render';

const events: CastEvent[] = [[0, 'o', '$ lakerec history\r\n'], [0.5, 'o', 'v0\r\nv1\r\n'], [0.9, 'o', '[exit 0]\r\n']];

describe('the terminal a frame shows', () => {
  it('CR LF as newlines, the events up to the frame, the last rows only', () => {
    expect(screenAt(events, 1, 40)).toBe('$ lakerec history\n');
    expect(screenAt(events, 2, 40)).toBe('$ lakerec history\nv0\nv1\n');
    expect(screenAt(events, 3, 2)).toBe('[exit 0]\n');
    expect(screenAt(events, 0, 5)).toBe('');
  });
});

describe('reading a cast back', () => {
  it('refuses anything but asciicast v2, and skips blank lines', () => {
    expect(() => parseCast('{"version":1,"width":80,"height":24}\n')).toThrow('not an asciicast v2 file (version 1)');
    expect(parseCast('{"version":2,"width":80,"height":24}\n\n[0,"o","x"]\n').events).toEqual([[0, 'o', 'x']]);
  });
});

describe('rendering without a browser', () => {
  const frames = (): string[] => readdirSync(tmpdir()).filter((f) => f.startsWith('lakerec-frames-'));
  it('fails with the launch error and leaves no frames folder behind', async () => {
    const before = frames();
    await expect(renderVideo({ events, out: join(tmpdir(), 'never.mp4'), chromium: join(tmpdir(), 'no-such-chromium'), caption: 'c' })).rejects.toThrow(/no-such-chromium/);
    expect(frames()).toEqual(before);
  });
});
