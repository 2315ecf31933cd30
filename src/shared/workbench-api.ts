// The renderer ⇄ main contract (DESIGN §4.3). One interface, implemented by the Electron preload
// and, later, by a WebSocket bridge for the plain-browser mode.
export interface AppInfo {
  name: string;
  version: string;
  platform: string;
  transport: 'electron' | 'websocket';
}

export interface WorkbenchApi {
  appInfo(): Promise<AppInfo>;
}

/** IPC channel names, declared once for both ends. */
export const ipcChannels = {
  appInfo: 'app:info',
} as const;
