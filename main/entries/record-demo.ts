// `npm run record-demo`: every demo command (sample-lakes/demo.ts demoSteps) run for real through
// main/bin/lakerec.mjs; their output captured with timestamps into docs/demo/demo.cast
// (asciicast v2), docs/demo/manifest.json (each command, exit code, wall time), and rendered from
// that file into docs/demo/demo.mp4 and its last frame docs/demo/poster.png (headless Chromium + ffmpeg). Needs /usr/bin/chromium (or
// LAKEREC_CHROMIUM) and ffmpeg; `--no-video` writes the cast and manifest only.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toErrorData } from '../../shared/errors';
import { demoSteps } from '../../sample-lakes/demo';
import { repoRoot } from '../engine/repo';
import { asciicast, capture, parseCast } from '../recording/capture';
import { renderVideo } from '../recording/render';

const ROWS = 5400;
const WIDTH = 150;
const HEIGHT = 40;

async function main(): Promise<number> {
  const noVideo = process.argv.includes('--no-video');
  const root = repoRoot();
  const outDir = join(root, 'docs', 'demo');
  mkdirSync(outDir, { recursive: true });
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'lakerec-record-')));
  try {
    const lake = join(scratch, 'demo');
    const steps = demoSteps(scratch, ROWS).map((s, i) => ({ title: s.title, why: s.why, argv: s.argv, cwd: i === 0 ? scratch : lake, expectExit: s.expectExit }));
    const c = await capture(steps, { bin: join(root, 'main', 'bin', 'lakerec.mjs'), scratch, env: { ...process.env, LAKEREC_DEBUG: '', NO_COLOR: '1' }, echo: (t) => process.stdout.write(t) });
    const title = 'lakerec demo: a clean Delta table broken twice, reconciled, bisected (real output)';
    writeFileSync(join(outDir, 'demo.cast'), asciicast(c, { width: WIDTH, height: HEIGHT, title, timestamp: Math.floor(Date.now() / 1000) }));
    const wrong = c.manifest.filter((m) => m.expectedExit !== null && m.exitCode !== m.expectedExit);
    const manifest = {
      about: 'npm run record-demo: each demo command run through main/bin/lakerec.mjs; output in demo.cast (asciicast v2) as it was printed, the scratch folder shown as $LAKE. demo.mp4 is a replay of that file, paced by the recorded times with a pause after each command; it is not a live screen recording.',
      recordedAt: new Date().toISOString(),
      node: process.version,
      rows: ROWS,
      totalWallSeconds: c.seconds,
      commands: c.manifest,
      video: null as null | { file: string; frames: number; seconds: number; bytes: number; readPauseSeconds: number },
    };
    if (!noVideo) {
      const chromiumPath = process.env.LAKEREC_CHROMIUM ?? '/usr/bin/chromium';
      const cast = parseCast(readFileSync(join(outDir, 'demo.cast'), 'utf8'));
      const v = await renderVideo({
        events: cast.events, out: join(outDir, 'demo.mp4'), poster: join(outDir, 'poster.png'), chromium: chromiumPath, readPause: 2.5,
        caption: 'Replay of real output: every line was printed by the command above it (docs/demo/demo.cast, npm run record-demo); paced by the recorded times, with a pause to read after each command.',
      });
      manifest.video = { file: 'demo.mp4', ...v, readPauseSeconds: 2.5 };
      process.stdout.write(`\nvideo: docs/demo/demo.mp4, ${v.frames} frames, ${v.seconds} s, ${(v.bytes / 1024).toFixed(0)} KiB\n`);
    }
    writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    if (wrong.length) {
      process.stderr.write(`record-demo: ${wrong.map((m) => `${m.title} exited ${m.exitCode}, expected ${m.expectedExit}`).join('; ')}\n`);
      return 1;
    }
    return 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code), (e: unknown) => {
  process.stderr.write(`lakerec record-demo: ${toErrorData(e).message}\n`);
  process.exit(3);
});
