// What the worker's upper layers need of an engine: one typed request/response call. The engine
// process, the supervising EngineHost and the fake engine of unit tests all provide it.
import type { EngineMethod, EngineParams, EngineResult } from '../../../src/shared/engine-protocol';
import type { CallOptions } from './engine-channel';

export interface EngineCaller {
  /** `opts`: a streamed generate's delta frames and its cancellation (protocol v2). */
  call<M extends EngineMethod>(method: M, params: EngineParams[M], opts?: CallOptions): Promise<EngineResult<M>>;
}
