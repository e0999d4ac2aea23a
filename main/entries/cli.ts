import { runCli } from '../cli/main';
import { removeStaleTempDirs } from '../engine/tempdirs';
import { memoryCeiling, overCeilingMessage, startMemoryWatchdog } from '../engine/watchdog';

// Leave with the code the tool decided on, after the streams have drained: a native module's
// finaliser must never turn a documented exit code into a crash code.
// `lakerec history T | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

async function main(): Promise<void> {
  // Spill folders a crashed run left behind (its pid is gone) are removed first.
  removeStaleTempDirs();
  // The job ceiling (main/engine/watchdog.ts): past it, one line and exit 3; the exit hooks remove
  // the temp folders.
  const ceiling = memoryCeiling();
  startMemoryWatchdog(ceiling, (rss) => {
    const name = /^[a-z-]+$/.test(process.argv[2] ?? '') ? process.argv[2] : 'lakerec';
    process.stderr.write(`lakerec ${name}: limit exceeded: ${overCeilingMessage(rss, ceiling)}\n`, () => process.exit(3));
    setTimeout(() => process.exit(3), 200).unref();
  });
  const code = await runCli(process.argv.slice(2), {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
  });
  await new Promise<void>((r) => process.stdout.write('', () => r()));
  await new Promise<void>((r) => process.stderr.write('', () => r()));
  process.exit(code);
}

main().catch((e: unknown) => {
  process.stderr.write(`lakerec: error: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(3);
});
