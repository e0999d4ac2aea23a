// The job ceiling that holds whatever a query does. DuckDB's memory limit bounds its buffer
// manager and V8's heap ceiling bounds JavaScript, but some memory lives outside both (a string
// built by `repeat` or a nested `replace`, a decoder's native buffers): an engine process can grow
// past them until the machine swaps. The watchdog samples the process's resident memory and ends
// the process's job when it passes the ceiling:
//   ceiling = RSS_FACTOR x (the DuckDB memory limit + the V8 heap ceiling), at most
//             MACHINE_SHARE of the machine's memory; LAKEREC_ENGINE_RSS_MB sets it instead.
// The engine process (the window's and web mode's jobs) reports the job as failed and is started
// again on the next call; the CLI prints one line and exits 3.
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { defaultMemoryLimit } from './duck';

/** The ceiling is this many times the configured memory (DuckDB's limit plus V8's heap). */
export const RSS_FACTOR = 2;
/** ... and never more than this share of the machine's memory. */
export const MACHINE_SHARE = 0.8;
/** How often resident memory is sampled (ms). */
export const SAMPLE_MS = 200;

const UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4 };

/** Bytes of a DuckDB memory setting ("4GB", "512MiB"); null when it does not parse. */
export function sizeBytes(s: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(s);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  return m && unit ? Math.round(Number(m[1]) * unit) : null;
}

export interface MemoryCeiling {
  bytes: number;
  /** How it was reached, for the message: "2 x (DuckDB 4096 MiB + heap 2096 MiB)". */
  rule: string;
}

export function memoryCeiling(env: Record<string, string | undefined> = process.env, total = totalmem(), heapBytes = getHeapStatistics().heap_size_limit): MemoryCeiling {
  const set = Number(env.LAKEREC_ENGINE_RSS_MB);
  if (Number.isInteger(set) && set >= 64) return { bytes: set * 1024 * 1024, rule: 'LAKEREC_ENGINE_RSS_MB' };
  let duckLimit = '';
  try { duckLimit = defaultMemoryLimit(env, total); } catch { /* a bad LAKEREC_DUCKDB_MEMORY is reported by openDuck */ }
  const duck = sizeBytes(duckLimit) ?? Math.floor(total / 2);
  const mib = (b: number) => Math.round(b / 1024 / 1024);
  const bytes = Math.min(RSS_FACTOR * (duck + heapBytes), Math.floor(MACHINE_SHARE * total));
  return { bytes, rule: bytes === Math.floor(MACHINE_SHARE * total) ? `${Math.round(MACHINE_SHARE * 100)}% of this machine's memory` : `${RSS_FACTOR} x (DuckDB ${mib(duck)} MiB + heap ${mib(heapBytes)} MiB)` };
}

/** One line for the user: what happened, the ceiling, and the knob. */
export function overCeilingMessage(rss: number, c: MemoryCeiling): string {
  const mib = (b: number) => Math.round(b / 1024 / 1024);
  return `The job used ${mib(rss)} MiB of memory, over the engine's ceiling of ${mib(c.bytes)} MiB (${c.rule}), and was ended. A query that builds huge values (repeat, lpad, replace) or a hostile table does this; LAKEREC_ENGINE_RSS_MB sets the ceiling.`;
}

/**
 * Samples resident memory every SAMPLE_MS; calls `onExceed` once when it passes `ceiling`.
 * Returns the stop function. The timer does not keep the process alive.
 */
export function startMemoryWatchdog(ceiling: MemoryCeiling, onExceed: (rss: number) => void, sampleMs = SAMPLE_MS): () => void {
  let fired = false;
  const t = setInterval(() => {
    if (fired) return;
    const rss = process.memoryUsage.rss();
    if (rss > ceiling.bytes) {
      fired = true;
      clearInterval(t);
      onExceed(rss);
    }
  }, sampleMs);
  t.unref();
  return () => clearInterval(t);
}
