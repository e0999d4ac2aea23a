// The only bridge between the sandboxed page and the engine: `window.lakerec`, a LakerecBridge
// (shared/api.ts). It forwards calls on the allow-listed channels and nothing else; the page
// never sees ipcRenderer itself.
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import {
  IPC_CANCEL, IPC_PROGRESS, ipcChannel, isApiMethod, type ApiResult, type LakerecBridge, type ProgressEvent,
} from '../shared/api';

const bridge: LakerecBridge = {
  invoke(method: string, request: unknown, jobId: string | null): Promise<ApiResult<unknown>> {
    if (!isApiMethod(method)) {
      return Promise.resolve({ ok: false, error: { code: 'usage', message: `Unknown API method "${method}".` } });
    }
    return ipcRenderer.invoke(ipcChannel(method), { request, jobId }) as Promise<ApiResult<unknown>>;
  },
  async cancel(jobId: string): Promise<void> {
    await ipcRenderer.invoke(IPC_CANCEL, jobId);
  },
  onProgress(listener: (e: ProgressEvent) => void): () => void {
    const wrapped = (_event: IpcRendererEvent, e: ProgressEvent) => listener(e);
    ipcRenderer.on(IPC_PROGRESS, wrapped);
    return () => {
      ipcRenderer.removeListener(IPC_PROGRESS, wrapped);
    };
  },
  pathForFile(file: object): string {
    // Electron 32+ no longer puts `path` on File; webUtils is the supported way.
    return webUtils.getPathForFile(file as File);
  },
};

contextBridge.exposeInMainWorld('lakerec', bridge);
