// Picks the transport at start-up: Electron IPC when the preload exposed `workbenchIpc`, otherwise
// the WebSocket bridge of `agentjet ui` (token from `#token=…`, kept in sessionStorage).
import { createWorkbenchClient, type WorkbenchApi } from '../../../shared/workbench-api';
import { createIpcTransport } from './ipc-transport';
import { bridgeUrl, resolveBridgeToken } from './token';
import { browserClock, openBrowserSocket, WsTransport, type ConnectionStatus } from './ws-transport';

export interface WorkbenchConnection {
  api: WorkbenchApi;
  kind: 'electron' | 'websocket';
  /** Current transport status and its changes (Electron IPC is always open). */
  status(): ConnectionStatus;
  onStatus(listener: (s: ConnectionStatus) => void): () => void;
  dispose(): void;
}

export type ConnectionResult = { ok: true; connection: WorkbenchConnection } | { ok: false; message: string };

export function openWorkbenchConnection(onProblem: (message: string) => void): ConnectionResult {
  const ipc = window.workbenchIpc;
  if (ipc) {
    return {
      ok: true,
      connection: {
        api: createWorkbenchClient(createIpcTransport(ipc), onProblem),
        kind: 'electron',
        status: () => 'open',
        onStatus: () => () => undefined,
        dispose: () => undefined,
      },
    };
  }
  const token = resolveBridgeToken(window.location.hash, window.sessionStorage, (rest) => {
    window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}${rest}`);
  });
  if (!token)
    return {
      ok: false,
      message: 'No bridge token: open the full URL that `agentjet ui` printed (it ends in #token=…).',
    };
  const transport = new WsTransport({
    url: bridgeUrl(window.location, token),
    openSocket: openBrowserSocket,
    clock: browserClock,
    onProblem,
  });
  transport.start();
  return {
    ok: true,
    connection: {
      api: createWorkbenchClient(transport, onProblem),
      kind: 'websocket',
      status: () => transport.status,
      onStatus: (l) => transport.onStatus(l),
      dispose: () => transport.dispose(),
    },
  };
}
