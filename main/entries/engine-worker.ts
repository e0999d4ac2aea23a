// `dist/main/engine-worker.js`: the engine in its own process. Web mode forks it with
// node:child_process (IPC channel); the window starts it with Electron's utilityProcess.fork
// (process.parentPort). Config arrives in LAKEREC_ENGINE_CONFIG.
import { runEngine } from '../app/engine-worker';
import type { EngineChannel, EngineConfig, EngineToHost, HostToEngine } from '../app/engine-protocol';

/** Electron's utility-process port (electron.d.ts ParentPort), typed here by what we use. */
interface ParentPort {
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  postMessage(message: unknown): void;
}

const config = JSON.parse(process.env.LAKEREC_ENGINE_CONFIG ?? '{}') as EngineConfig;
const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
let channel: EngineChannel;
if (port) {
  channel = {
    post: (msg: EngineToHost) => port.postMessage(msg),
    onMessage: (fn) => { port.on('message', (e) => fn(e.data as HostToEngine)); },
  };
} else if (process.send) {
  // The host going away (killed, crashed) ends the engine: no orphan keeps running.
  process.on('disconnect', () => process.exit(0));
  channel = {
    post: (msg: EngineToHost) => { process.send?.(msg); },
    onMessage: (fn) => { process.on('message', (m) => fn(m as HostToEngine)); },
  };
} else {
  process.stderr.write('lakerec engine: must be started by the workbench (no IPC channel)\n');
  process.exit(2);
}
runEngine(channel, config);
