// Turns the Connect forms' text fields into validated connect params (the contract's schemas), or
// one readable error naming the field. The training fields are the declared options with a form
// label (src/shared/options/declarations.ts). Pure, so every branch is tested.
import { formFields, TRAINING_OPTIONS, WORKER_OPTIONS, type FormField } from '../../../../shared/options/index';
import {
  LocalConnectSchema,
  RemoteConnectSchema,
  type LocalConnect,
  type RemoteConnect,
} from '../../../../shared/workbench-api';

/** The advanced settings of the local form (training, then engine: mode, LoRA, ranks), in declaration order. */
export const TRAINING_FIELDS: readonly FormField[] = [...formFields(TRAINING_OPTIONS), ...formFields(WORKER_OPTIONS)];

/** Model, example and clients, plus one text per training field (by its name; '' = the worker's default). */
export type LocalForm = { model: string; example: string; clients: string } & Record<string, string>;

export interface RemoteForm {
  url: string;
  adminToken: string;
  joinToken: string;
  example: string;
  clients: string;
  /** SHA-256 of an https worker's certificate ('' = trust on first use). */
  fingerprint: string;
  /** Reach the worker through an SSH tunnel to this host ('' = directly). */
  sshHost: string;
}

export const DEFAULT_LOCAL: LocalForm = {
  model: 'builtin',
  example: 'calculator-agent',
  clients: '2',
  ...Object.fromEntries(TRAINING_FIELDS.map((f) => [f.name, ''])),
};
export const DEFAULT_REMOTE: RemoteForm = {
  url: '',
  adminToken: '',
  joinToken: '',
  example: '',
  clients: '0',
  fingerprint: '',
  sshHost: '',
};

export type Built<T> = { ok: true; params: T } | { ok: false; error: string };

const LABELS: Record<string, string> = {
  model: 'Model',
  example: 'Example',
  clients: 'Clients',
  ...Object.fromEntries(TRAINING_FIELDS.map((f) => [f.name, f.label])),
  url: 'Worker URL',
  adminToken: 'Admin token',
  joinToken: 'Join token',
  fingerprint: 'Certificate fingerprint',
  sshHost: 'SSH host',
};

/** '' → undefined; otherwise a number or NaN (which the schema rejects with the field's name). */
function num(s: string): number | undefined {
  const t = s.trim();
  return t === '' ? undefined : Number(t);
}

function text(s: string): string | undefined {
  const t = s.trim();
  return t === '' ? undefined : t;
}

function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const i = error.issues[0];
  if (!i) return 'invalid input';
  const field = String(i.path[0] ?? '');
  return `${LABELS[field] ?? field}: ${i.message}`;
}

function clean<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function buildLocalParams(f: LocalForm): Built<LocalConnect> {
  const raw = clean({
    model: text(f.model) ?? 'builtin',
    example: text(f.example),
    clients: num(f.clients),
    ...Object.fromEntries(
      TRAINING_FIELDS.map((t) => [
        t.name,
        t.kind === 'int' || t.kind === 'number'
          ? num(f[t.name] ?? '')
          : text(f[t.name] ?? '')?.replace(/\s*,\s*/g, ','),
      ]),
    ),
  });
  const parsed = LocalConnectSchema.strict().safeParse(raw);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  const d = parsed.data;
  if ((d.loraAlpha !== undefined || d.loraTargets !== undefined) && d.loraR === undefined)
    return { ok: false, error: 'LoRA rank: required with LoRA alpha or targets' };
  if (d.trainMode === 'full' && d.loraR !== undefined)
    return { ok: false, error: 'Training mode: "full" contradicts the LoRA settings' };
  return { ok: true, params: d };
}

export function buildRemoteParams(f: RemoteForm): Built<RemoteConnect> {
  const url = text(f.url);
  if (!url) return { ok: false, error: 'Worker URL: enter the worker address, e.g. https://gpu-box:8400' };
  if (!text(f.adminToken))
    return { ok: false, error: 'Admin token: required (the worker prints it, or see <run-dir>/tokens.json)' };
  const raw = clean({
    url,
    adminToken: text(f.adminToken),
    joinToken: text(f.joinToken),
    example: text(f.example),
    clients: num(f.clients),
    fingerprint: text(f.fingerprint),
    sshHost: text(f.sshHost),
  });
  const parsed = RemoteConnectSchema.strict().safeParse(raw);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  if ((parsed.data.clients ?? 0) > 0 && (!parsed.data.joinToken || !parsed.data.example)) {
    return {
      ok: false,
      error: 'Clients: running local clients against a remote worker needs a join token and an example',
    };
  }
  if (parsed.data.fingerprint !== undefined && !/^https:/i.test(parsed.data.url))
    return { ok: false, error: 'Certificate fingerprint: only an https:// worker has a certificate' };
  return { ok: true, params: parsed.data };
}
