// The client runner's public surface, shared by the CLI and the Electron main process (Node only).
export {
  ClientRunner,
  type ClientCommand,
  type ClientRunnerOptions,
  type RunnerEvents,
  type RunnerStatus,
  type SwapResult,
} from './client-runner';
export type { ClientState, ClientStatus, LogLine, LogStream, RestartPolicy } from './client-process';
export { CodeStore, type CodeVersionManifest, type StoredVersion } from './code-store';
export {
  compileClient,
  defaultCacheDir,
  formatCompileMessage,
  type ClientCode,
  type CompileMessage,
  type CompileOptions,
  type CompileResult,
  type SourceFile,
} from './compile';
export { defaultBackoff } from './client-runner';
export type { BackoffPolicy } from '../../shared/backoff';
export type { Disposable } from './typed-emitter';
