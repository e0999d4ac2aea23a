// The engine process's side: the real service behind the real Dispatcher, driven by messages.
// It runs in a child process (web mode) or an Electron utility process (the window), never in
// the process that serves the page or owns the window.
import type { ApiHandlers, ProgressEvent } from '../../shared/api';
import type { JobContext } from '../../shared/jobs';
import { progressGate, throwIfCancelled } from '../../shared/jobs';
import { writeOutput } from '../engine/outputs';
import { removeStaleTempDirs } from '../engine/tempdirs';
import { memoryCeiling, overCeilingMessage, startMemoryWatchdog } from '../engine/watchdog';
import { resolve } from 'node:path';
import { Dispatcher } from './dispatch';
import type { DialogKind, EngineChannel, EngineConfig, HostToEngine } from './engine-protocol';
import { createService } from './service';

/** The shortest time between two plain progress lines of one call sent to the host (ms). */
const PROGRESS_MS = 50;

/** Tests only: paths that make listVersions fail the way a hostile table could. */
function withTestFaults(h: ApiHandlers): ApiHandlers {
  const real = h.listVersions;
  return {
    ...h,
    async listVersions(req, ctx: JobContext) {
      if (req.path === '/lakerec-test-fault/oom') {
        // A V8 heap exhaustion, as an unbounded decoder would cause: the process dies.
        const hold: number[][] = [];
        for (;;) hold.push(new Array<number>(1_000_000).fill(hold.length));
      }
      if (req.path === '/lakerec-test-fault/exit') process.exit(70);
      if (req.path === '/lakerec-test-fault/rss') {
        // Memory outside the V8 heap (as a DuckDB string or a native decoder holds it): only the
        // resident-memory watchdog sees it.
        const hold: Buffer[] = [];
        for (let i = 0; i < 4000; i++) { hold.push(Buffer.alloc(16 << 20, i)); await new Promise((r) => setTimeout(r, 2)); }
      }
      if (req.path === '/lakerec-test-fault/hang') {
        for (;;) { /* a loop that never yields: only the host can end it */ }
      }
      if (req.path === '/lakerec-test-fault/slow') {
        for (let i = 0; i < 500; i++) { throwIfCancelled(ctx); await new Promise((r) => setTimeout(r, 20)); }
      }
      return real(req, ctx);
    },
  };
}

export function runEngine(channel: EngineChannel, config: EngineConfig): void {
  removeStaleTempDirs();
  // The job ceiling: past it, the running calls fail with one clear line and this process ends
  // (the host starts a fresh one on the next call).
  const ceiling = memoryCeiling(config.rssCeilingMb ? { LAKEREC_ENGINE_RSS_MB: String(config.rssCeilingMb) } : process.env);
  startMemoryWatchdog(ceiling, (rss) => {
    const message = overCeilingMessage(rss, ceiling);
    channel.post({ type: 'log', line: `engine: ${message}` });
    channel.post({ type: 'overLimit', message });
    // A moment for the message to cross, then the process ends with its memory.
    setTimeout(() => process.exit(75), 50);
  });
  const log = (line: string) => channel.post({ type: 'log', line });
  // Dialogs are asked of the host (Electron's main process) and answered by message.
  const waiting = new Map<number, (path: string | null) => void>();
  let nextDialog = 1;
  const ask = (kind: DialogKind, defaultName?: string) => new Promise<string | null>((done) => {
    const id = nextDialog++;
    waiting.set(id, done);
    channel.post({ type: 'dialog', id, kind, ...(defaultName ? { defaultName } : {}) });
  });
  const dialogs = config.dialogs ? {
    pickFolder: () => ask('pickFolder'),
    pickSource: () => ask('pickSource'),
    saveFile: async (defaultName: string, content: string, tableRoots: string[]) => {
      const path = await ask('saveFile', defaultName);
      if (path === null) return null;
      // The one output guard: never inside a table the window opened (or any other), atomic.
      writeOutput(path, content, { what: 'the report', roots: tableRoots });
      return resolve(path);
    },
  } : {};
  let service = createService({
    mode: config.mode, userDataDir: config.userDataDir, log, ...dialogs,
    ...(config.runsDir ? { runsDir: config.runsDir } : {}),
    ...(config.cwd ? { cwd: config.cwd } : {}),
    ...(config.initialTable !== undefined ? { initialTable: config.initialTable } : {}),
    ...(config.sampleTables ? { sampleTables: config.sampleTables } : {}),
  });
  if (config.testFaults) service = withTestFaults(service);
  const dispatcher = new Dispatcher(service, log);
  channel.onMessage((msg: HostToEngine) => {
    if (msg.type === 'cancel') {
      dispatcher.cancel(msg.jobId);
      return;
    }
    if (msg.type === 'dialogResult') {
      waiting.get(msg.id)?.(msg.path);
      waiting.delete(msg.id);
      return;
    }
    // Progress crosses to the host (and on to the page) at most every PROGRESS_MS per call.
    const gate = progressGate<ProgressEvent>((event) => channel.post({ type: 'progress', id: msg.id, event }), PROGRESS_MS, (e) => e.progress);
    void dispatcher.call(msg.method, msg.request, {
      jobId: msg.jobId,
      onProgress: (event) => gate.push(event),
    }).then((result) => {
      gate.close();
      channel.post({ type: 'result', id: msg.id, result });
    });
  });
  channel.post({ type: 'ready' });
}
