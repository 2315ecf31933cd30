// The one error class of the swarm HTTP API, shared by the server (which answers with it) and the
// SDKs (which rebuild it from an answer): HTTP status + the wire `{type, code, message}` and, for
// 503s, the seconds to wait before retrying.
import type { ErrorBody } from './swarm-protocol';

export class SwarmError extends Error {
  constructor(
    /** HTTP status; 0 when no answer came (connection refused, reset, timed out). */
    readonly status: number,
    readonly type: string,
    readonly code: string,
    message: string,
    /** Seconds the server asks the client to wait (503 answers). */
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = 'SwarmError';
  }

  /** 503 (updating, paused, engine restarting), 502/504 from a proxy, or no answer at all. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 502 || this.status === 503 || this.status === 504;
  }

  /** The JSON body the server answers with. */
  toBody(): ErrorBody {
    return {
      error: {
        type: this.type,
        code: this.code,
        message: this.message,
        ...(this.retryAfterS !== undefined ? { retry_after_s: this.retryAfterS } : {}),
      },
    };
  }
}
