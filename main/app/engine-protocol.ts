// Messages between the window's or the web server's process and the engine process. The engine
// runs the one Dispatcher over the one service (shared/api.ts); only calls, cancels, progress
// and results cross, all plain data, so a hostile table can fail a job but never the host.
import type { ApiResult, ProgressEvent, SampleTable } from '../../shared/api';

export type HostToEngine =
  | { type: 'call'; id: number; method: string; request: unknown; jobId: string | null }
  | { type: 'cancel'; jobId: string }
  /** The answer to a dialog the engine asked for (null: cancelled). */
  | { type: 'dialogResult'; id: number; path: string | null };

/** The native dialogs live in the window's process; the engine asks for them by message. */
export type DialogKind = 'pickFolder' | 'pickSource' | 'saveFile';

export type EngineToHost =
  | { type: 'ready' }
  | { type: 'progress'; id: number; event: ProgressEvent }
  | { type: 'result'; id: number; result: ApiResult<unknown> }
  | { type: 'log'; line: string }
  | { type: 'dialog'; id: number; kind: DialogKind; defaultName?: string }
  /** The memory watchdog ends this process: its running calls fail with this message (main/engine/watchdog.ts). */
  | { type: 'overLimit'; message: string };

/** What the engine process needs to build its service (plain data: no dialogs, no callbacks). */
export interface EngineConfig {
  mode: 'electron' | 'web';
  userDataDir: string;
  runsDir?: string;
  cwd?: string;
  initialTable?: string | null;
  sampleTables?: SampleTable[];
  /** Electron: the host shows the native dialogs the engine asks for. */
  dialogs?: boolean;
  /** The resident-memory ceiling of the engine process (MB); default: main/engine/watchdog.ts. */
  rssCeilingMb?: number;
  /** Tests only: methods that crash or hang the engine on purpose (see engine-worker.ts). */
  testFaults?: boolean;
}

/** The two ends of a channel, whatever carries it (a child's IPC, Electron's parentPort). */
export interface EngineChannel {
  post(msg: EngineToHost): void;
  onMessage(fn: (msg: HostToEngine) => void): void;
}
