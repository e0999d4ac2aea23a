// `node dist/main/web.js [FOLDER] [--port N] [--no-open] [--user-data DIR] [--demo]`
// Web mode: serves the workbench on 127.0.0.1 and prints the URL (with this launch's token).
import { runWebMode } from '../app/web-main';

runWebMode(process.argv.slice(2), import.meta.url).catch((e: unknown) => {
  process.stderr.write(`lakerec web: error: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(3);
});
