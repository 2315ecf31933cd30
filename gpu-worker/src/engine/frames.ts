// Length-prefixed JSON frames (4-byte big-endian length + UTF-8 JSON), the engine's stdio format.

export const MAX_FRAME_BYTES = 512 * 1024 * 1024;

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body]);
}

/**
 * Incremental decoder: feed it stdout chunks, get back complete frames' parsed JSON.
 * A frame that is not valid JSON is reported through `onError` and skipped, so one bad frame
 * never wedges the stream.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly onError: (message: string) => void = () => undefined) {}

  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: unknown[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const head = this.peek(4);
      const length = head.readUInt32BE(0);
      if (length > MAX_FRAME_BYTES) {
        this.onError(`frame of ${length} bytes exceeds the ${MAX_FRAME_BYTES}-byte limit; discarding buffered output`);
        this.chunks = [];
        this.buffered = 0;
        break;
      }
      if (this.buffered < 4 + length) break;
      const frame = this.take(4 + length).subarray(4);
      try {
        out.push(JSON.parse(frame.toString('utf8')));
      } catch (err) {
        this.onError(`malformed frame from engine: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return out;
  }

  private peek(n: number): Buffer {
    const first = this.chunks[0];
    if (first && first.length >= n) return first.subarray(0, n);
    const all = Buffer.concat(this.chunks);
    this.chunks = [all];
    return all.subarray(0, n);
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const taken = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return taken;
  }
}
