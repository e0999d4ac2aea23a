// A video from an asciicast file: terminal frames drawn in headless Chromium (playwright-core)
// and joined with ffmpeg. The reveal is paced by the recording's own times (each command's
// output appears when it appeared), with a pause after each command to read it. It is a replay
// of real output, not a screen recording, and every frame says so.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { CastEvent } from './capture';

export interface RenderOptions {
  events: CastEvent[];
  out: string;
  chromium: string;
  /** Where to write the last frame as a still (the README's poster). */
  poster?: string;
  /** Seconds to hold the screen after each command's exit line. */
  readPause?: number;
  caption: string;
}

/** The terminal's text after some events: CR LF as newline, the last `rows` lines. */
export function screenAt(events: CastEvent[], upTo: number, rows: number): string {
  const text = events.slice(0, upTo).map((e) => e[2]).join('').replace(/\r\n/g, '\n');
  const lines = text.split('\n');
  return lines.slice(Math.max(0, lines.length - rows)).join('\n');
}

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>
html,body{margin:0;background:#0f1419;}
#cap{font:13px/1.4 sans-serif;color:#9aa5b1;padding:6px 14px;background:#1b2229;border-bottom:1px solid #2b333b}
#t{font:14px/1.3 "DejaVu Sans Mono",monospace;color:#e6e1cf;padding:10px 14px;margin:0;overflow:hidden;height:calc(100vh - 52px);box-sizing:border-box;display:flex;flex-direction:column;justify-content:flex-end}
#tx{white-space:pre-wrap;overflow-wrap:anywhere}
</style></head><body><div id="cap"></div><pre id="t"><div id="tx"></div></pre></body></html>`;

export async function renderVideo(o: RenderOptions): Promise<{ frames: number; seconds: number; bytes: number }> {
  const pause = o.readPause ?? 2.5;
  const ROWS = 40;
  // The browser first: a launch that fails leaves no frames folder behind.
  const browser = await chromium.launch({ executablePath: o.chromium, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-frames-'));
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    await page.setContent(PAGE);
    // Text is set as textContent (never parsed as HTML), from a JSON string literal.
    const setText = (id: string, text: string) => page.evaluate(`document.getElementById(${JSON.stringify(id)}).textContent = ${JSON.stringify(text)}`);
    await setText('cap', o.caption);
    // One frame per event; its duration is the recorded gap to the next event, plus the read
    // pause after a command's exit line.
    const list: string[] = [];
    let total = 0;
    for (let i = 1; i <= o.events.length; i++) {
      const screen = screenAt(o.events, i, ROWS);
      // Long lines wrap; the newest line stays at the bottom, as in a terminal.
      await setText('tx', screen);
      const file = join(dir, `f${String(i).padStart(4, '0')}.png`);
      await page.screenshot({ path: file });
      const gap = i < o.events.length ? Math.max(0, o.events[i][0] - o.events[i - 1][0]) : 0;
      const isExit = /^\[exit /.test(o.events[i - 1][2]);
      const d = Math.max(0.05, gap + (isExit ? pause : 0) + (i === o.events.length ? 4 : 0));
      total += d;
      list.push(`file '${file}'`, `duration ${d.toFixed(3)}`);
    }
    list.push(list[list.length - 2]); // the concat demuxer needs the last frame twice
    if (o.poster) copyFileSync(join(dir, `f${String(o.events.length).padStart(4, '0')}.png`), o.poster);
    const listFile = join(dir, 'frames.txt');
    writeFileSync(listFile, list.join('\n') + '\n');
    const r = spawnSync('ffmpeg', ['-y', '-loglevel', 'error', '-f', 'concat', '-safe', '0', '-i', listFile,
      '-vf', 'fps=10,format=yuv420p', '-c:v', 'libx264', '-preset', 'slow', '-crf', '30', '-movflags', '+faststart', o.out], { encoding: 'utf8' });
    if (r.error) throw new Error(`ffmpeg could not run (${r.error.message}); install it: apt-get install -y ffmpeg`);
    if (r.status !== 0) throw new Error(`ffmpeg failed: ${r.stderr.trim()}`);
    return { frames: o.events.length, seconds: Math.round(total * 10) / 10, bytes: statSync(o.out).size };
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
