// Shared by the reconcile, report, trust and proof e2e: a sample lake and a copy of it, a
// fingerprint of a folder (a table must never change), and a file dropped on the page.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot } from './helpers';

/** A sample lake (table, source extract, contract), built alone if the sample lakes are not. */
export function ensureLake(name: string): string {
  const lake = join(repoRoot, 'sample-lakes', 'built', name);
  if (!existsSync(join(lake, 'table', '_delta_log'))) {
    const r = spawnSync(process.execPath, [join(repoRoot, 'dist', 'main', 'cli.js'), 'build-sample-lakes', '--only', name], { cwd: repoRoot, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`building the ${name} lake failed (node dist/main/cli.js build-sample-lakes --only ${name})`);
  }
  return lake;
}

/** The double_load lake, the one most screens' e2e reconcile. */
export const ensureDoubleLoad = (): string => ensureLake('double_load');

/**
 * A copy of a sample lake in a new temp folder (a screen may write beside the table, never in it),
 * with the table's file state taken before anything runs.
 */
export function copyLake(name: string, prefix: string): { dir: string; lakeCopy: string; table: string; before: string[] } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const lakeCopy = join(dir, name);
  cpSync(ensureLake(name), lakeCopy, { recursive: true });
  const table = join(lakeCopy, 'table');
  return { dir, lakeCopy, table, before: treeState(table) };
}

/** Every file under `dir` with its size and mtime: the table must not change. */
export function treeState(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else { const s = statSync(p); out.push(`${relative(dir, p)} ${s.size} ${s.mtimeMs}`); }
    }
  };
  walk(dir);
  return out.sort();
}

/** Drops a File built in the page from `bytes` on `selector` (what a browser gives for a drag from the desktop). */
export async function dropFile(page: Page, selector: string, name: string, bytes: Buffer): Promise<void> {
  // A string: the e2e files are type-checked without the DOM library.
  await page.evaluate(`(() => {
    const bin = atob(${JSON.stringify(bytes.toString('base64'))});
    const buf = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) buf[i] = bin.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([buf], ${JSON.stringify(name)}, { type: 'application/octet-stream' }));
    const target = document.querySelector(${JSON.stringify(selector)});
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  })()`);
}

