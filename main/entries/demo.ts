// `npm run demo [-- --keep DIR] [--rows N]`: the demo of sample-lakes/demo.ts, on stdout.
import { toErrorData } from '../../shared/errors';
import { parseDemoArgs, runDemo } from '../../sample-lakes/demo';
import { runCli } from '../cli/main';

async function main(): Promise<number> {
  const { keep, rows } = parseDemoArgs(process.argv.slice(2));
  const r = await runDemo({ cli: runCli, keep, rows, out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
  return r.code;
}

main().then(async (code) => {
  await new Promise<void>((r) => process.stdout.write('', () => r()));
  process.exit(code);
}, (e: unknown) => {
  const d = toErrorData(e);
  process.stderr.write(`lakerec demo: ${d.message}\n`);
  process.exit(d.code === 'usage' ? 2 : 3);
});
