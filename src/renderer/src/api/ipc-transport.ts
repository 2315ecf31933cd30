// The Electron transport: the preload's raw `workbenchIpc` behind the WorkbenchTransport shape.
// Each invoke reply is an `IpcReplySchema` value: ok → its result, otherwise a WorkbenchError.
import {
  IpcReplySchema,
  WorkbenchError,
  type WorkbenchMethod,
  type WorkbenchTransport,
} from '../../../shared/workbench-api';

export interface RawIpc {
  invoke(method: WorkbenchMethod, params: unknown): Promise<unknown>;
  subscribe(listener: (raw: unknown) => void): () => void;
}

/** Unwraps one IPC reply: the result, or throws the error it carries (or a clear one for a malformed reply). */
export function unwrapIpcReply(method: WorkbenchMethod, raw: unknown): unknown {
  const parsed = IpcReplySchema.safeParse(raw);
  if (!parsed.success) throw new WorkbenchError('bad_reply', `${method}: malformed reply from the main process`);
  if (parsed.data.ok) return parsed.data.result;
  throw new WorkbenchError(parsed.data.error.code, parsed.data.error.message);
}

export function createIpcTransport(ipc: RawIpc): WorkbenchTransport {
  return {
    call: async (method, params) => unwrapIpcReply(method, await ipc.invoke(method, params)),
    subscribe: (listener) => ipc.subscribe(listener),
  };
}
