// Two-role trials (docs/studies.md#two-role-trials): a task whose rounds are played by several roles
// (the proposer/solver game) runs either one worker per role, each with its own model and training
// options, or one worker shared by every role. `roleWorkers` says which workers a trial starts and
// which roles each serves; the trial's clients get every role's worker URL and join token. Pure.
import { z } from 'zod';
import { TrainingConfigPatchSchema } from '../swarm-protocol';

/** The bundled tasks played by several roles, and their roles (in the order the clients address them). */
export const ROLE_TASKS = { 'proposer-solver': ['proposer', 'solver'] } as const satisfies Record<
  string,
  readonly string[]
>;
export type RoleTask = keyof typeof ROLE_TASKS;

export const isRoleTask = (task: string): task is RoleTask => Object.hasOwn(ROLE_TASKS, task);

/** One role's worker settings over the base run's (used when the role has its own worker). */
export const RoleSettingsSchema = z
  .object({
    model: z.string().min(1).max(1000).optional(),
    /** Training options over the base's, merged key by key. */
    training: TrainingConfigPatchSchema.default({}),
  })
  .strict();
export type RoleSettings = z.output<typeof RoleSettingsSchema>;

export const RolesSchema = z.record(z.string().regex(/^[a-z][a-z0-9-]{0,39}$/), RoleSettingsSchema);

/** `separate`: one worker per role; `shared`: one worker plays (and trains on) every role's episodes. */
export const ROLE_LAYOUTS = ['separate', 'shared'] as const;
export type RoleLayout = (typeof ROLE_LAYOUTS)[number];

type Training = z.output<typeof TrainingConfigPatchSchema>;

/** A worker a trial starts: its name (a role, or `shared`), the roles it serves, its model and training options. */
export interface RoleWorker {
  name: string;
  roles: string[];
  model: string;
  training: Training;
}

/** Problems with a base run's roles: roles on a one-role task, unknown roles, per-role settings on a shared worker. */
export function checkRoles(
  task: string,
  roles: Record<string, RoleSettings> | undefined,
  layout: RoleLayout | undefined,
): string[] {
  if (!isRoleTask(task)) {
    return roles !== undefined || layout !== undefined
      ? [`roles / roleWorkers apply to the tasks played by several roles only (${Object.keys(ROLE_TASKS).join(', ')})`]
      : [];
  }
  const known: readonly string[] = ROLE_TASKS[task];
  const errors = Object.keys(roles ?? {})
    .filter((r) => !known.includes(r))
    .map((r) => `roles.${r}: ${task} has no role ${JSON.stringify(r)} (its roles: ${known.join(', ')})`);
  if (layout === 'shared') {
    const own = Object.entries(roles ?? {}).filter(([, s]) => s.model !== undefined || Object.keys(s.training).length);
    if (own.length > 0)
      errors.push(
        `roles ${own.map(([r]) => r).join(', ')}: per-role settings need one worker per role (roleWorkers: separate)`,
      );
  }
  return errors;
}

/** The workers of a trial of a role task: one per role (with the role's settings), or one for all. */
export function roleWorkers(
  task: RoleTask,
  base: { model: string; training: Training },
  roles: Record<string, RoleSettings> | undefined,
  layout: RoleLayout,
): RoleWorker[] {
  const all = [...ROLE_TASKS[task]];
  if (layout === 'shared') return [{ name: 'shared', roles: all, model: base.model, training: base.training }];
  return all.map((role) => {
    const own = roles?.[role];
    return {
      name: role,
      roles: [role],
      model: own?.model ?? base.model,
      training: { ...base.training, ...own?.training },
    };
  });
}

/** The environment variable a client reads a role's worker URL (or join token) from. */
export const roleEnv = (role: string, what: 'URL' | 'JOIN_TOKEN'): string =>
  `AGENTJET_${role.toUpperCase().replace(/-/g, '_')}_${what}`;
