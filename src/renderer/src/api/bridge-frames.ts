// Encoding and decoding of WebSocket bridge frames (browser side). Every inbound frame is parsed
// with the contract's `BridgeReplySchema`; anything else becomes a `bad` frame with a reason.
import type { WireError } from '../../../shared/result';
import { BridgeReplySchema, type BridgeRequest, type WorkbenchMethod } from '../../../shared/workbench-api';

export type InboundFrame =
  | { kind: 'result'; id: number; result: unknown }
  | { kind: 'error'; id: number | null; error: WireError }
  | { kind: 'event'; event: unknown }
  | { kind: 'bad'; reason: string };

export function encodeCall(id: number, method: WorkbenchMethod, params: unknown): string {
  const frame: BridgeRequest = { type: 'call', id, method, params };
  return JSON.stringify(frame);
}

export function decodeFrame(text: string): InboundFrame {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { kind: 'bad', reason: 'bridge sent a frame that is not JSON' };
  }
  const parsed = BridgeReplySchema.safeParse(raw);
  if (!parsed.success)
    return {
      kind: 'bad',
      reason: `bridge sent an unexpected frame: ${parsed.error.issues
        .map((i) => `${i.path.join('.') || '(frame)'}: ${i.message}`)
        .join('; ')
        .slice(0, 300)}`,
    };
  const f = parsed.data;
  if (f.type === 'result') return { kind: 'result', id: f.id, result: f.result };
  if (f.type === 'error') return { kind: 'error', id: f.id, error: f.error };
  return { kind: 'event', event: f.event };
}
