// Preload: exposes the workbench transport to the renderer over Electron IPC — one `call` channel
// and one pushed `event` channel — never ipcRenderer itself. It stays dependency-free (a sandboxed
// preload cannot load packages): replies pass through raw and the renderer parses them with the
// schemas of src/shared/workbench-api.ts.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { ipcChannels, type WorkbenchMethod } from '../shared/workbench-api';
import type { RawIpcTransport } from './index.d';

const transport: RawIpcTransport = {
  invoke: (method: WorkbenchMethod, params: unknown): Promise<unknown> =>
    ipcRenderer.invoke(ipcChannels.call, method, params),
  subscribe: (listener: (raw: unknown) => void): (() => void) => {
    const handler = (_event: IpcRendererEvent, payload: unknown): void => listener(payload);
    ipcRenderer.on(ipcChannels.event, handler);
    return () => ipcRenderer.off(ipcChannels.event, handler);
  },
};

contextBridge.exposeInMainWorld('workbenchIpc', transport);
