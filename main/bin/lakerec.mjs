#!/usr/bin/env node
// The installed `lakerec` command: runs the built CLI (npm ci builds it via `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const entry = join(root, 'dist', 'main', 'cli.js');
if (!existsSync(entry)) {
  process.stderr.write('lakerec: not built yet; run `npm run build` in ' + root + '\n');
  process.exit(3);
}
await import(pathToFileURL(entry).href);
