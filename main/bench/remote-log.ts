// Benchmark (a figure, not a test): open the 300k-add-file Delta log from ../shared/bench through a
// loopback S3 server (s3rver, started here on a free port) and from the local disk, in the same run:
// open + the latest snapshot, wall time median of runs, with the requests and bytes the remote open
// made (goal: within 2x of local; requests O(log files), not O(data files)).
//
//   npm run bench -- --only remote-log --merge     (opt-in: not part of the default bench)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { openTable } from '../delta/open';
import { ObjectStorage } from '../storage';
import { repoRoot } from '../engine/repo';
import { findTableRoot } from './log-replay';

export interface RemoteLogFigures {
  input: string | null;
  skippedReason?: string;
  logFiles: number;
  activeFiles: number;
  localMs: number;
  remoteMs: number;
  /** remoteMs / localMs (goal <= 2). */
  ratio: number;
  /** Requests the remote open + snapshot made (one run). */
  requests: number;
  bytes: number;
  /** Bytes fetched for data files (0: the log alone answered). */
  dataBytes: number;
  runs: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? 0 : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Every file below `dir`, by its path (what a bench uploads). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

export async function benchRemoteLog(opts: { runs?: number; input?: string } = {}): Promise<RemoteLogFigures> {
  const runs = opts.runs ?? 3;
  const input = opts.input ?? resolve(repoRoot(), '..', 'shared', 'bench', '300k-add-files-100-col-partitioned.tar.zst');
  const empty: RemoteLogFigures = { input: null, logFiles: 0, activeFiles: 0, localMs: 0, remoteMs: 0, ratio: 0, requests: 0, bytes: 0, dataBytes: 0, runs: 0 };
  if (!existsSync(input)) return { ...empty, skippedReason: `${input} is absent` };
  const tmp = mkdtempSync(join(tmpdir(), 'lakerec-bench-remote-'));
  const S3rver = createRequire(import.meta.url)('s3rver') as new (o: object) => { run(): Promise<{ port: number }>; close(): Promise<void> };
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: join(tmp, 's3'), silent: true, configureBuckets: [{ name: 'bench' }] });
  try {
    execFileSync('tar', ['--zstd', '-xf', input, '-C', tmp]);
    const root = findTableRoot(tmp);
    if (!root) throw new Error(`no _delta_log in ${input}`);
    const { port } = await server.run();
    const endpoint = `http://127.0.0.1:${port}`;
    const env = { AWS_ENDPOINT_URL_S3: endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
    const put = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const logFiles = filesUnder(join(root, '_delta_log'));
    for (const f of logFiles) {
      await put.send(new PutObjectCommand({ Bucket: 'bench', Key: `t/${relative(root, f).split(sep).join('/')}`, Body: readFileSync(f) }));
    }
    const local: number[] = [];
    const remote: number[] = [];
    let activeFiles = 0;
    let stats = { requests: 0, bytes: 0, dataBytes: 0 };
    for (let r = 0; r < runs; r++) {
      let t0 = performance.now();
      const lt = await openTable(root);
      activeFiles = (await lt.snapshot()).files.length;
      local.push(performance.now() - t0);
      t0 = performance.now();
      const rt = await openTable('s3://bench/t', { env });
      const n = (await rt.snapshot()).files.length;
      remote.push(performance.now() - t0);
      if (n !== activeFiles) throw new Error(`remote snapshot has ${n} files, local ${activeFiles}`);
      if (rt.storage instanceof ObjectStorage) stats = { ...rt.storage.stats };
    }
    const localMs = Math.round(median(local));
    const remoteMs = Math.round(median(remote));
    return { input, logFiles: logFiles.length, activeFiles, localMs, remoteMs, ratio: Math.round((remoteMs / localMs) * 100) / 100, ...stats, runs };
  } finally {
    await server.close().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
}

export function formatRemoteLogFigures(f: RemoteLogFigures): string {
  if (f.input === null) return `remote-log: skipped (${f.skippedReason})`;
  return [
    `remote-log: the 300k-add log (${f.logFiles} log files, ${f.activeFiles} active files), open + latest snapshot, median of ${f.runs}`,
    `  local disk        ${f.localMs} ms`,
    `  loopback S3       ${f.remoteMs} ms  (${f.ratio}x local; goal <= 2)`,
    `  requests          ${f.requests} (${f.bytes} bytes; data-file bytes ${f.dataBytes})`,
  ].join('\n');
}
