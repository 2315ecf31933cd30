// Electron main process: one window with the security defaults of STYLE.md habit 7.
import { app, BrowserWindow, ipcMain, shell, type IpcMainInvokeEvent } from 'electron';
import { join } from 'node:path';
import { dispatchWorkbenchCall, ipcChannels, type WorkbenchBackend } from '../shared/workbench-api';

let mainWindow: BrowserWindow | null = null;

/** Only our own window's top frame may call main. */
function trustedSender(event: IpcMainInvokeEvent): boolean {
  return mainWindow !== null && event.sender === mainWindow.webContents && event.senderFrame === mainWindow.webContents.mainFrame;
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
    },
  });
  const contents = mainWindow.webContents;
  contents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => event.preventDefault());
  const devUrl = process.env.ELECTRON_RENDERER_URL;
  if (devUrl) void mainWindow.loadURL(devUrl);
  else void mainWindow.loadFile(join(__dirname, '../renderer/index.html'));
  mainWindow.on('closed', () => (mainWindow = null));
}

/** Set once the services are up; calls before that are refused. */
let backend: WorkbenchBackend | null = null;
export const setBackend = (b: WorkbenchBackend): void => void (backend = b);

ipcMain.handle(ipcChannels.call, async (event, method: unknown, params: unknown) => {
  if (!trustedSender(event)) return { ok: false, error: { code: 'untrusted_sender', message: 'untrusted sender' } };
  if (!backend) return { ok: false, error: { code: 'not_ready', message: 'the workbench is starting' } };
  return dispatchWorkbenchCall(backend, method, params);
});

void app.whenReady().then(() => {
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
