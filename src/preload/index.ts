// Preload: exposes the narrow WorkbenchApi to the renderer over Electron IPC; never ipcRenderer.
import { contextBridge, ipcRenderer } from 'electron';
import { ipcChannels, type AppInfo, type WorkbenchApi } from '../shared/workbench-api';

const api = {
  appInfo: () => ipcRenderer.invoke(ipcChannels.appInfo) as Promise<AppInfo>,
} satisfies WorkbenchApi;

contextBridge.exposeInMainWorld('workbench', api);
