// One WebSocket bridge frame in, one reply frame out: JSON → BridgeRequest → dispatchWorkbenchCall.
// Never throws; every problem becomes an `error` frame so the connection stays usable.
import {
  BridgeRequestSchema,
  dispatchWorkbenchCall,
  type BridgeReply,
  type WorkbenchBackend,
} from '../../shared/workbench-api';

/** The request id when the frame has a usable one, so a malformed call still gets a matched error. */
function idOf(value: unknown): number | null {
  if (typeof value !== 'object' || value === null || !('id' in value)) return null;
  const id = value.id;
  return typeof id === 'number' && Number.isInteger(id) && id >= 0 ? id : null;
}

export async function handleBridgeFrame(backend: WorkbenchBackend, text: string): Promise<BridgeReply> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return {
      type: 'error',
      id: null,
      error: {
        type: 'invalid_request',
        code: 'bad_json',
        message: `malformed JSON frame: ${err instanceof Error ? err.message : String(err)}`,
      },
    };
  }
  const frame = BridgeRequestSchema.safeParse(raw);
  if (!frame.success) {
    const detail = frame.error.issues.map((i) => `${i.path.join('.') || '(frame)'}: ${i.message}`).join('; ');
    return {
      type: 'error',
      id: idOf(raw),
      error: {
        type: 'invalid_request',
        code: 'bad_frame',
        message: `expected {type:"call", id, method, params}: ${detail}`,
      },
    };
  }
  const { id, method, params } = frame.data;
  const reply = await dispatchWorkbenchCall(backend, method, params);
  return reply.ok ? { type: 'result', id, result: reply.result } : { type: 'error', id, error: reply.error };
}
