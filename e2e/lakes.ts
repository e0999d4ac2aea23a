// The screens' e2e run on the sample lakes (built by `npm run sample-lakes`; built here when
// missing), plus a synthetic 10,000-version log for the timeline's scale check.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { repoRoot } from './helpers';

export const LAKES = join(repoRoot, 'sample-lakes', 'built');
const NEEDED = ['double_load', 'partition_wipe', 'healed_history', 'vacuumed_history', 'bisect_many_versions', 'overwrite_too_wide'];

/** The table folder of a built sample lake, building the lakes once if any is missing. */
export function ensureLakes(): void {
  if (NEEDED.every((n) => existsSync(join(LAKES, n, 'table', '_delta_log')))) return;
  const r = spawnSync(process.execPath, [join(repoRoot, 'dist', 'main', 'cli.js'), 'build-sample-lakes'], { cwd: repoRoot, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('building the sample lakes failed (node dist/main/cli.js build-sample-lakes)');
}

export const lake = (name: string): string => join(LAKES, name, 'table');

/**
 * A real Delta log of `n` versions: a create, then appends of one file each (every 9th a
 * delete of an earlier file, one retried batch). The data files are not written: the timeline
 * reads the log only (data_files_missing fires, as it should for such a table).
 */
export function writeLongLog(root: string, n: number): void {
  const log = join(root, '_delta_log');
  mkdirSync(log, { recursive: true });
  const t0 = Date.UTC(2026, 0, 1);
  const schema = JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: false, metadata: {} }, { name: 'dt', type: 'string', nullable: true, metadata: {} }] });
  const stats = (lo: number, rows: number) => JSON.stringify({ numRecords: rows, minValues: { id: lo }, maxValues: { id: lo + rows - 1 }, nullCount: { id: 0 } });
  const add = (v: number, lo: number, rows: number) => ({
    add: { path: `dt=d${v % 30}/part-${v}.parquet`, partitionValues: { dt: `d${v % 30}` }, size: 1000 + rows, modificationTime: t0 + v * 60_000, dataChange: true, stats: stats(lo, rows) },
  });
  const info = (v: number, operation: string, params: Record<string, string>) => ({
    commitInfo: { timestamp: t0 + v * 60_000, operation, operationParameters: params, isolationLevel: 'Serializable', isBlindAppend: operation === 'WRITE', engineInfo: 'lakerec-e2e' },
  });
  for (let v = 0; v < n; v++) {
    const actions: object[] = [];
    if (v === 0) {
      actions.push(info(v, 'CREATE TABLE', {}));
      actions.push({ protocol: { minReaderVersion: 1, minWriterVersion: 2 } });
      actions.push({ metaData: { id: 'e2e-long-log', format: { provider: 'parquet', options: {} }, schemaString: schema, partitionColumns: ['dt'], configuration: {}, createdTime: t0 } });
    } else if (v % 9 === 0) {
      const victim = v - 5;
      actions.push(info(v, 'DELETE', { predicate: `["id = ${victim}"]` }));
      actions.push({ remove: { path: `dt=d${victim % 30}/part-${victim}.parquet`, deletionTimestamp: t0 + v * 60_000, dataChange: true, partitionValues: { dt: `d${victim % 30}` }, size: 1000 + 10 + (victim % 50) } });
    } else {
      const rows = 10 + (v % 50);
      actions.push(info(v, 'WRITE', { mode: 'Append' }));
      actions.push(add(v, v * 100, rows));
    }
    writeFileSync(join(log, `${String(v).padStart(20, '0')}.json`), actions.map((a) => JSON.stringify(a)).join('\n') + '\n');
  }
}

/** The app's page, opened on `path` through the sidebar's path box. */
export async function openByPath(page: Page, path: string): Promise<void> {
  await page.fill('[data-testid=path-input]', path);
  await page.click('[data-testid=open-button]');
}

/** Why the Electron variant cannot run here (as e2e/electron.e2e.ts decides), or null. */
export function electronSkipReason(): string | null {
  const pathFile = join(repoRoot, 'node_modules', 'electron', 'path.txt');
  if (!existsSync(pathFile)) return "Electron's binary is not installed (node_modules/electron/path.txt is missing: its download is blocked here)";
  const bin = join(repoRoot, 'node_modules', 'electron', 'dist', readFileSync(pathFile, 'utf8'));
  if (!existsSync(bin)) return `no Electron binary at ${bin}`;
  const needsDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
  if (needsDisplay && spawnSync('sh', ['-c', 'command -v xvfb-run']).status !== 0) return 'no display for an Electron window (DISPLAY unset and xvfb-run not installed)';
  return null;
}

/** The real Electron app on `table` (the app folder, as `npm start` launches it). */
export async function launchElectron(table: string, userData: string): Promise<ElectronApplication> {
  const pathFile = join(repoRoot, 'node_modules', 'electron', 'path.txt');
  const bin = join(repoRoot, 'node_modules', 'electron', 'dist', readFileSync(pathFile, 'utf8'));
  const env = { ...process.env, LAKEREC_USER_DATA: userData } as Record<string, string>;
  const needsDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
  return needsDisplay
    ? _electron.launch({ executablePath: 'xvfb-run', args: ['-a', bin, repoRoot, table], env })
    : _electron.launch({ executablePath: bin, args: [repoRoot, table], env });
}
