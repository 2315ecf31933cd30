// Wrappers around a WorkbenchBackend that each transport applies: the transport it reports in
// appInfo, and default training settings for local connects (`agentjet ui --batch …`).
import { LocalConnectSchema, WORKBENCH_METHODS, type WorkbenchBackend } from '../../shared/workbench-api';

/** A backend with some methods replaced; the others stay bound to the original. */
export function overrideBackend(backend: WorkbenchBackend, overrides: Partial<WorkbenchBackend>): WorkbenchBackend {
  const entries = WORKBENCH_METHODS.map((m) => {
    const own = overrides[m];
    const original = backend[m] as (p: unknown) => Promise<unknown>;
    return [m, own ?? ((p: unknown) => original.call(backend, p))] as const;
  });
  // Every method of the table is present, each from the backend or its override of the same type.
  return Object.fromEntries(entries) as unknown as WorkbenchBackend;
}

export function withTransport(backend: WorkbenchBackend, transport: 'electron' | 'websocket'): WorkbenchBackend {
  return overrideBackend(backend, { appInfo: async (p) => ({ ...(await backend.appInfo(p)), transport }) });
}

/** Training settings a local connect gets when the UI's form does not set them (the form's fields, by name). */
export type LocalDefaults = Readonly<Record<string, unknown>>;

export function withLocalDefaults(backend: WorkbenchBackend, defaults: LocalDefaults): WorkbenchBackend {
  const set = Object.entries(defaults).filter(([, v]) => v !== undefined);
  if (set.length === 0) return backend;
  return overrideBackend(backend, {
    connectLocal: (p) => {
      const given: Readonly<Record<string, unknown>> = p;
      const unset = Object.fromEntries(set.filter(([k]) => given[k] === undefined));
      return backend.connectLocal(LocalConnectSchema.parse({ ...p, ...unset }));
    },
  });
}
