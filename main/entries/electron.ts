// Electron's main process entry (package.json "main"). Run by `npm start` where Electron's
// binary exists: `electron dist/main/electron.js [FOLDER]`.
import { app } from 'electron';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runElectronApp } from '../app/electron';

// This file is dist/main/electron.js once built; the app root holds dist/ and sample-lakes/.
const appRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Unpackaged: argv = [electron, script, ...args]; packaged: [app, ...args].
runElectronApp({ appRoot, argv: process.argv.slice(app.isPackaged ? 1 : 2) });
