// `dist/main/engine-worker.js`: the engine as a child process of web mode (node:child_process
// fork, IPC channel). Config arrives in LAKEREC_ENGINE_CONFIG.
import { runEngine } from '../app/engine-worker';
import type { EngineConfig, EngineToHost, HostToEngine } from '../app/engine-protocol';

const config = JSON.parse(process.env.LAKEREC_ENGINE_CONFIG ?? '{}') as EngineConfig;
if (!process.send) {
  process.stderr.write('lakerec engine: must be started by the workbench (no IPC channel)\n');
  process.exit(2);
}
// The host going away (killed, crashed) ends the engine: no orphan keeps running.
process.on('disconnect', () => process.exit(0));
runEngine({
  post: (msg: EngineToHost) => { process.send?.(msg); },
  onMessage: (fn) => process.on('message', (m) => fn(m as HostToEngine)),
}, config);
