// Runs commands for real through the installed bin and records what they print, when: the
// events of an asciicast v2 file (https://docs.asciinema.org/manual/asciicast/v2/) and a
// manifest with each command's exit code and wall time. Nothing is re-typed or edited: the one
// rewrite is the scratch folder's path, shown as $LAKE.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export type CastEvent = [number, 'o', string];

export interface CaptureStep {
  title: string;
  why: string;
  /** Arguments after `lakerec`. */
  argv: string[];
  cwd: string;
  expectExit?: number;
}

export interface ManifestEntry {
  title: string;
  command: string;
  cwd: string;
  exitCode: number | null;
  expectedExit: number | null;
  /** Seconds from the recording's start to the command's start. */
  startedAt: number;
  wallSeconds: number;
  stdoutBytes: number;
  stderrBytes: number;
}

export interface Capture {
  events: CastEvent[];
  manifest: ManifestEntry[];
  seconds: number;
}

export interface CaptureOptions {
  bin: string;
  /** Replaced by $LAKE in everything recorded. */
  scratch: string;
  env?: NodeJS.ProcessEnv;
  /** Called with each step's text as it arrives (e.g. to echo it). */
  echo?: (text: string) => void;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

function runOne(bin: string, argv: string[], cwd: string, env: NodeJS.ProcessEnv, on: (stream: 'out' | 'err', text: string) => void): Promise<number | null> {
  return new Promise((resolveP, reject) => {
    const child = spawn(process.execPath, [bin, ...argv], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (t: string) => on('out', t));
    child.stderr.on('data', (t: string) => on('err', t));
    child.on('error', reject);
    child.on('close', (code) => resolveP(code));
  });
}

export async function capture(steps: CaptureStep[], opts: CaptureOptions): Promise<Capture> {
  const scrub = (s: string): string => s.split(opts.scratch).join('$LAKE');
  // A terminal wants CR LF; the commands print LF.
  const term = (s: string): string => s.replace(/\r?\n/g, '\r\n');
  const t0 = performance.now();
  const now = (): number => round3((performance.now() - t0) / 1000);
  const events: CastEvent[] = [];
  const emit = (text: string): void => {
    events.push([now(), 'o', term(text)]);
    opts.echo?.(text);
  };
  const manifest: ManifestEntry[] = [];
  for (const s of steps) {
    emit(`\n\u2500\u2500 ${s.title}: ${s.why}\n`);
    const command = `lakerec ${s.argv.map(scrub).join(' ')}`;
    emit(`$ ${command}\n`);
    const started = now();
    const t = performance.now();
    let outBytes = 0;
    let errBytes = 0;
    const code = await runOne(opts.bin, s.argv, s.cwd, opts.env ?? process.env, (stream, text) => {
      if (stream === 'out') outBytes += Buffer.byteLength(text);
      else errBytes += Buffer.byteLength(text);
      emit(scrub(text));
    });
    const wall = round3((performance.now() - t) / 1000);
    emit(`[exit ${code}]\n`);
    manifest.push({ title: s.title, command, cwd: scrub(s.cwd), exitCode: code, expectedExit: s.expectExit ?? null, startedAt: started, wallSeconds: wall, stdoutBytes: outBytes, stderrBytes: errBytes });
  }
  return { events, manifest, seconds: now() };
}

/** The .cast file: a header line, then one JSON array per event. */
export function asciicast(c: Capture, meta: { width: number; height: number; title: string; timestamp: number }): string {
  const header = { version: 2, width: meta.width, height: meta.height, timestamp: meta.timestamp, title: meta.title, env: { TERM: 'xterm-256color', SHELL: '/bin/sh' } };
  return [JSON.stringify(header), ...c.events.map((e) => JSON.stringify(e))].join('\n') + '\n';
}

/** Reads a .cast back (the video is rendered from the file, not from memory). */
export function parseCast(text: string): { header: { width: number; height: number; title?: string }; events: CastEvent[] } {
  const lines = text.split('\n').filter((l) => l.trim());
  const header = JSON.parse(lines[0]) as { version: number; width: number; height: number; title?: string };
  if (header.version !== 2) throw new Error(`not an asciicast v2 file (version ${header.version})`);
  return { header, events: lines.slice(1).map((l) => JSON.parse(l) as CastEvent) };
}
