// The window API the preload exposes, as the renderer sees it: a raw IPC transport whose replies
// are `IpcReplySchema` values and whose events are `WorkbenchEvent` payloads, both unparsed.
import type { WorkbenchMethod } from '../shared/workbench-api';

export interface RawIpcTransport {
  invoke(method: WorkbenchMethod, params: unknown): Promise<unknown>;
  subscribe(listener: (raw: unknown) => void): () => void;
}

declare global {
  interface Window {
    workbenchIpc?: RawIpcTransport;
  }
}
