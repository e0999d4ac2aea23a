// Read limits: a hostile table must not make the reader allocate without bound. Each has an
// environment knob, named in the refusal, for the genuine table that is bigger.
export interface ReadLimits {
  /** One JSON commit or compaction file. */
  commitBytes: number;
  /** One checkpoint file (part, sidecar, v2 top-level file). */
  checkpointBytes: number;
  lastCheckpointBytes: number;
  /** One deletion vector's serialised bitmap. */
  dvBytes: number;
  /** Rows one deletion vector may delete (the decoded array is kept in memory). */
  dvRows: number;
}

export const LIMIT_KNOBS = {
  commitBytes: 'LAKEREC_MAX_COMMIT_MB',
  checkpointBytes: 'LAKEREC_MAX_CHECKPOINT_MB',
  lastCheckpointBytes: 'LAKEREC_MAX_LAST_CHECKPOINT_MB',
  dvBytes: 'LAKEREC_MAX_DV_MB',
  dvRows: 'LAKEREC_MAX_DV_ROWS',
} as const satisfies Record<keyof ReadLimits, string>;

const MB = 1048576;
const DEFAULTS: ReadLimits = {
  commitBytes: 512 * MB,
  checkpointBytes: 4096 * MB,
  lastCheckpointBytes: 1 * MB,
  dvBytes: 256 * MB,
  dvRows: 100_000_000,
};

function fromEnv(env: NodeJS.ProcessEnv, key: keyof ReadLimits): number {
  const raw = env[LIMIT_KNOBS[key]];
  const n = raw === undefined ? NaN : Number(raw);
  if (!Number.isFinite(n) || n <= 0) return DEFAULTS[key];
  return key === 'dvRows' ? Math.floor(n) : Math.floor(n * MB);
}

/** The limits in force: the defaults, the environment's knobs, then explicit overrides (tests). */
export function readLimits(over: Partial<ReadLimits> = {}, env: NodeJS.ProcessEnv = process.env): ReadLimits {
  const out = {} as ReadLimits;
  for (const k of Object.keys(DEFAULTS) as (keyof ReadLimits)[]) out[k] = over[k] ?? fromEnv(env, k);
  return out;
}
