// Where the bundled sample lakes are, which one `npm start` opens, and the user's app-data
// folder outside Electron (the same folder Electron's app.getPath('userData') gives).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SampleTable } from '../../shared/api';
import { writeDemoTable } from './demo-table';
import { findSampleTables } from './service';

export function sampleLakesDir(appRoot: string): string {
  return join(appRoot, 'sample-lakes', 'built');
}

/** The table `npm start` opens: the demo lake (built to be investigated), else a clean one, else the first. */
export function defaultSample(samples: SampleTable[]): SampleTable | null {
  return samples.find((s) => s.name === 'demo')
    ?? samples.find((s) => /^(clean|control|orders)/i.test(s.name))
    ?? samples[0] ?? null;
}

/**
 * The sample tables to offer. When the sample lakes are not built and `ensureOne` is set, a
 * small demo table is written into the app-data folder so there is always something to open.
 */
export async function resolveSamples(appRoot: string, userDataDir: string, ensureOne: boolean): Promise<SampleTable[]> {
  const built = findSampleTables(sampleLakesDir(appRoot));
  if (built.length > 0 || !ensureOne) return built;
  const demo = join(userDataDir, 'demo-lake', 'orders');
  if (!existsSync(join(demo, '_delta_log', '00000000000000000003.json'))) await writeDemoTable(demo);
  return [{ name: 'orders (demo)', path: demo }];
}

/** The OS's per-user app-data folder for lakerec, as Electron computes it. */
export function defaultUserDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.LAKEREC_USER_DATA) return env.LAKEREC_USER_DATA;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'lakerec');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'lakerec');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'lakerec');
}
