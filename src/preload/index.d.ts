// The window API the preload exposes, as the renderer sees it.
import type { WorkbenchApi } from '../shared/workbench-api';

declare global {
  interface Window {
    workbench?: WorkbenchApi;
  }
}
