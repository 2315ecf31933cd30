// Electron main process: one window with the security defaults of STYLE.md habit 7, the workbench
// services (createWorkbench) behind the IPC `call` channel, their events pushed to the window, and
// a clean dispose (clients, worker checkpoint, database) before the app quits.
import { app, BrowserWindow, dialog, ipcMain, session, shell, type IpcMainInvokeEvent } from 'electron';
import { join } from 'node:path';
import {
  dispatchWorkbenchCall,
  ipcChannels,
  type WorkbenchBackend,
  type WorkbenchEvent,
} from '../shared/workbench-api';
import { BRIDGE_CSP } from '../node/bridge/static-files';
import { withTransport } from '../node/bridge/backend-overrides';
import { createWorkbench } from '../node/workbench';

let mainWindow: BrowserWindow | null = null;

/** Only our own window's top frame may call main. */
function trustedSender(event: IpcMainInvokeEvent): boolean {
  return (
    mainWindow !== null &&
    event.sender === mainWindow.webContents &&
    event.senderFrame === mainWindow.webContents.mainFrame
  );
}

function createWindow(): void {
  mainWindow = new BrowserWindow({
    width: 1400,
    height: 900,
    title: 'AgentJet Workbench',
    webPreferences: {
      preload: join(__dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    },
  });
  const contents = mainWindow.webContents;
  contents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  const devUrl = process.env['ELECTRON_RENDERER_URL'];
  if (devUrl) void mainWindow.loadURL(devUrl);
  else void mainWindow.loadFile(join(__dirname, '../renderer/index.html'));
  mainWindow.on('closed', () => (mainWindow = null));
}

/** Set once the services are up; calls before that are refused. */
let backend: WorkbenchBackend | null = null;
export const setBackend = (b: WorkbenchBackend | null): void => void (backend = b);

ipcMain.handle(ipcChannels.call, async (event, method: unknown, params: unknown) => {
  if (!trustedSender(event))
    return { ok: false, error: { type: 'invalid_request', code: 'untrusted_sender', message: 'untrusted sender' } };
  if (!backend)
    return { ok: false, error: { type: 'unavailable', code: 'not_ready', message: 'the workbench is starting' } };
  return dispatchWorkbenchCall(backend, method, params);
});

function pushEvent(event: WorkbenchEvent): void {
  const contents = mainWindow?.webContents;
  if (contents && !contents.isDestroyed()) contents.send(ipcChannels.event, event);
}

type Workbench = Awaited<ReturnType<typeof createWorkbench>>;
let workbench: Workbench | null = null;
let stopEvents: (() => void) | null = null;

async function startServices(): Promise<void> {
  // AGENTJET_HOME moves the data (the e2e spec uses a scratch folder); default: the app's userData.
  const dataDir = process.env['AGENTJET_HOME'] ?? app.getPath('userData');
  const wb = await createWorkbench({ dataDir, log: (line) => console.log(line) });
  workbench = wb;
  stopEvents = wb.onEvent(pushEvent);
  setBackend(withTransport(wb.backend, 'electron'));
}

let disposed = false;
async function disposeServices(): Promise<void> {
  setBackend(null);
  stopEvents?.();
  stopEvents = null;
  const wb = workbench;
  workbench = null;
  if (wb) await wb.dispose();
}

/** Defence in depth: no other web contents, no permissions, and a CSP header where one applies. */
function lockDown(): void {
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  // The dev server (HMR) needs its own inline preamble; the built app gets the strict policy.
  if (!process.env['ELECTRON_RENDERER_URL']) {
    session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
      callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [BRIDGE_CSP] } });
    });
  }
}

void app.whenReady().then(async () => {
  lockDown();
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
  try {
    await startServices();
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    // better-sqlite3 built for Node (npm install) cannot load in Electron until rebuilt for it.
    const hint = /NODE_MODULE_VERSION/.test(text)
      ? '\n\nNative modules are built for Node, not Electron: run `npx electron-builder install-app-deps` (and `npm rebuild better-sqlite3` to go back to Node for `agentjet ui` and the tests).'
      : '';
    dialog.showErrorBox('AgentJet Workbench could not start', `${text}${hint}`);
    app.quit();
  }
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

// Quit waits for the services to stop (clients, worker checkpoint, database), once.
app.on('before-quit', (event) => {
  if (disposed) return;
  event.preventDefault();
  disposed = true;
  disposeServices()
    .catch((err: unknown) => console.error(`shutdown failed: ${err instanceof Error ? err.message : String(err)}`))
    .finally(() => app.quit());
});
