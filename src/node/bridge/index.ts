// The WebSocket bridge and its helpers: how a plain browser reaches the workbench (`agentjet ui`).
export {
  startBridgeServer,
  BRIDGE_PATH,
  DEFAULT_MAX_FRAME_BYTES,
  type BridgeOptions,
  type BridgeServer,
} from './bridge-server';
export { BRIDGE_CSP } from './static-files';
export { overrideBackend, withLocalDefaults, withTransport, type LocalDefaults } from './backend-overrides';
export { newBridgeToken, tokensEqual } from './token';
export {
  startUiSession,
  type CreateWorkbench,
  type UiSession,
  type UiSessionOptions,
  type WorkbenchHandle,
  type WorkbenchTuning,
} from './ui-session';
export { ensureWebBuild, webBuildDir, webBuildState } from './web-build';
