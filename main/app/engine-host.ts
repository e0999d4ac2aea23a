// The host side of crash isolation: the web server and the window call the engine through this,
// with the Dispatcher's own interface (call, cancel), but the engine runs in another process with
// a memory ceiling. Two lanes, each its own process: jobs (reading tables) and quick calls
// (settings, recent tables, contracts), so a job that hangs or dies never holds the quick calls.
// A process that dies fails its calls with a typed error and is started again on the next call;
// a job that ignores its cancel is ended by ending its process.
import { fork, type ChildProcess } from 'node:child_process';
import { apiSpec, isApiMethod, type ApiResult, type ProgressEvent } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import { queryTimeLimitMs } from '../engine/duck';
import type { CallOptions } from './dispatch';
import type { DialogKind, EngineConfig, EngineToHost, HostToEngine } from './engine-protocol';

export type Lane = 'job' | 'call';

/** One running engine process, whatever starts it (child_process.fork, Electron utilityProcess). */
export interface EngineProcess {
  send(msg: HostToEngine): void;
  onMessage(fn: (msg: EngineToHost) => void): void;
  /** Called once when the process is gone, with a reason for the user ("out of memory", "exit code 70"). */
  onExit(fn: (why: string) => void): void;
  kill(): void;
}

export type EngineSpawner = (lane: Lane) => EngineProcess;

export interface EngineHostOptions {
  spawn: EngineSpawner;
  /** The V8 heap ceiling of an engine process, for the messages (MB). */
  memoryMb: number;
  /** How long a cancelled job may take to stop before its process is ended (ms). */
  cancelGraceMs?: number;
  /**
   * The time limit of an interactive call (INTERACTIVE_METHODS), ms; default twice the engine's
   * own query limit (queryTimeLimitMs: the call may open the table first) plus cancelGraceMs. The
   * engine interrupts its query at its limit; a query DuckDB cannot interrupt (stuck inside one
   * vector of rows) is ended here.
   */
  interactiveLimitMs?: number;
  /** Electron: shows a native dialog the engine asked for. */
  dialog?: (kind: DialogKind, defaultName?: string) => Promise<string | null>;
  log?: (line: string) => void;
}

/** The default V8 heap ceiling of an engine process: LAKEREC_ENGINE_MEMORY_MB, else 2048 MB. */
export function engineMemoryMb(env: Record<string, string | undefined> = process.env): number {
  const v = Number(env.LAKEREC_ENGINE_MEMORY_MB);
  return Number.isInteger(v) && v >= 64 ? v : 2048;
}

interface Pending {
  lane: Lane;
  jobId: string | null;
  onProgress?: (e: ProgressEvent) => void;
  done: (r: ApiResult<unknown>) => void;
  cancelled: boolean;
  /** Ended by the interactive time limit (its process was ended). */
  timedOut?: number;
}

/** Calls a user waits on with the window in front of them: each has a time limit. */
export const INTERACTIVE_METHODS: ReadonlySet<string> = new Set(['rows']);

export class EngineHost {
  private readonly lanes = new Map<Lane, EngineProcess>();
  private readonly pending = new Map<number, Pending>();
  /** Why a process is about to end, when it said so itself (the memory watchdog). */
  private readonly ending = new WeakMap<EngineProcess, string>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: EngineHostOptions) {}

  call(method: unknown, request: unknown, opts: CallOptions): Promise<ApiResult<unknown>> {
    if (this.closed) return Promise.resolve({ ok: false, error: { code: 'cancelled', message: 'The workbench is shutting down.' } });
    // Validation happens in the engine's Dispatcher; the lane only needs the method's kind.
    const lane: Lane = typeof method === 'string' && isApiMethod(method) && apiSpec[method].job ? 'job' : 'call';
    const id = this.nextId++;
    return new Promise((done) => {
      this.pending.set(id, { lane, jobId: opts.jobId, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}), done, cancelled: false });
      const proc = this.process(lane);
      proc.send({ type: 'call', id, method: String(method), request, jobId: opts.jobId });
      if (typeof method === 'string' && INTERACTIVE_METHODS.has(method)) {
        const limit = this.opts.interactiveLimitMs ?? 2 * queryTimeLimitMs() + (this.opts.cancelGraceMs ?? 5000);
        setTimeout(() => {
          const p = this.pending.get(id);
          if (!p || this.lanes.get(lane) !== proc) return;
          p.timedOut = limit;
          this.opts.log?.(`engine: a ${method} call ran past its time limit of ${limit} ms; ending its process`);
          proc.kill();
        }, limit).unref();
      }
    });
  }

  cancel(jobId: string): boolean {
    let found = false;
    for (const p of this.pending.values()) {
      if (p.jobId !== jobId) continue;
      found = true;
      p.cancelled = true;
      const proc = this.lanes.get(p.lane);
      proc?.send({ type: 'cancel', jobId });
      // A job stuck where it cannot see its signal (a loop that never yields) is ended with its process.
      const grace = this.opts.cancelGraceMs ?? 5000;
      setTimeout(() => {
        if ([...this.pending.values()].some((q) => q.jobId === jobId) && this.lanes.get(p.lane) === proc) {
          this.opts.log?.(`engine: job ${jobId} did not stop within ${grace} ms of its cancel; ending its process`);
          proc?.kill();
        }
      }, grace).unref();
    }
    // A cancel that arrives before its call reaches the engine is kept there (the Dispatcher's early cancels).
    if (!found) this.lanes.get('job')?.send({ type: 'cancel', jobId });
    return found;
  }

  /** Calls still waiting for their engine. */
  get running(): number {
    return this.pending.size;
  }

  /** Ends the engine processes; calls still waiting fail as cancelled. */
  close(): void {
    this.closed = true;
    for (const proc of this.lanes.values()) proc.kill();
    this.lanes.clear();
  }

  private process(lane: Lane): EngineProcess {
    const have = this.lanes.get(lane);
    if (have) return have;
    const proc = this.opts.spawn(lane);
    this.lanes.set(lane, proc);
    proc.onMessage((msg) => this.onMessage(proc, msg));
    proc.onExit((why) => {
      if (this.lanes.get(lane) === proc) this.lanes.delete(lane);
      const over = this.ending.get(proc);
      for (const [id, p] of this.pending) {
        if (p.lane !== lane) continue;
        this.pending.delete(id);
        p.done({ ok: false, error: over !== undefined && !this.closed && !p.cancelled ? { code: 'limit_exceeded', message: over, detail: { reason: 'memory ceiling' } } : this.crashError(p, why) });
      }
    });
    return proc;
  }

  private crashError(p: Pending, why: string): LakerecErrorData {
    if (this.closed) return { code: 'cancelled', message: 'The workbench is shutting down.' };
    if (p.cancelled) return { code: 'cancelled', message: 'Cancelled: the job did not stop by itself, so the engine running it was ended.' };
    if (p.timedOut !== undefined) {
      return {
        code: 'limit_exceeded',
        message: `The query ran past its time limit of ${Math.round(p.timedOut / 100) / 10} s and could not be interrupted, so the engine running it was ended; it starts again on the next call (LAKEREC_QUERY_TIME_LIMIT_MS sets the limit).`,
        detail: { limitMs: p.timedOut },
      };
    }
    return {
      code: 'internal',
      message: `The engine stopped while running this ${p.lane === 'job' ? 'job' : 'call'} (${why}); it starts again on the next call. `
        + `A table that needs more than the engine's ${this.opts.memoryMb} MB, or a hostile one, fails its job without taking the workbench down.`,
      detail: { reason: why },
    };
  }

  private onMessage(proc: EngineProcess, msg: EngineToHost): void {
    switch (msg.type) {
      case 'ready':
        return;
      case 'log':
        this.opts.log?.(msg.line);
        return;
      case 'progress':
        this.pending.get(msg.id)?.onProgress?.(msg.event);
        return;
      case 'result': {
        const p = this.pending.get(msg.id);
        if (!p) return;
        this.pending.delete(msg.id);
        p.done(msg.result);
        return;
      }
      case 'overLimit':
        this.ending.set(proc, msg.message);
        this.opts.log?.(`engine: ${msg.message}`);
        return;
      case 'dialog': {
        const show = this.opts.dialog;
        const answer = show ? show(msg.kind, msg.defaultName).catch(() => null) : Promise.resolve(null);
        void answer.then((path) => proc.send({ type: 'dialogResult', id: msg.id, path }));
        return;
      }
    }
  }
}

/** Web mode's engine processes: `node --max-old-space-size=N dist/main/engine-worker.js`, over IPC. */
export function forkSpawner(entry: string, config: EngineConfig, memoryMb: number, log: (line: string) => void = () => {}): EngineSpawner {
  return () => {
    const child: ChildProcess = fork(entry, [], {
      env: { ...process.env, LAKEREC_ENGINE_CONFIG: JSON.stringify(config) },
      execArgv: [`--max-old-space-size=${memoryMb}`],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    let tail = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (t: string) => {
      tail = (tail + t).slice(-4000);
      for (const line of t.split('\n')) if (line.trim()) log(`engine: ${line}`);
    });
    return {
      send: (msg) => { if (child.connected) child.send(msg); },
      onMessage: (fn) => { child.on('message', (m) => fn(m as EngineToHost)); },
      onExit: (fn) => {
        let told = false;
        const tell = (why: string) => { if (!told) { told = true; fn(why); } };
        child.on('exit', (code, signal) => {
          const oom = /heap limit|out of memory|Allocation failed/i.test(tail);
          tell(oom ? `out of memory: over its ${memoryMb} MB heap ceiling` : signal ? `ended by ${signal}` : `exit code ${String(code)}`);
        });
        child.on('error', (e) => tell(`could not run: ${e.message}`));
      },
      kill: () => { child.kill('SIGKILL'); },
    };
  };
}
