// What the worker's upper layers need of an engine: one typed request/response call. The engine
// process, the supervising EngineHost and the fake engine of unit tests all provide it.
import type { EngineMethod, EngineParams, EngineResult } from '../../../src/shared/engine-protocol';

export interface EngineCaller {
  call<M extends EngineMethod>(method: M, params: EngineParams[M]): Promise<EngineResult<M>>;
}
