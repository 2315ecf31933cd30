// Run ids name a run in the store and its folders on disk (`<data>/runs/<id>`, `<data>/exports/<id>`),
// so one safe pattern holds wherever an id is created or used to build a path: a letter or digit, then
// up to 127 letters, digits, `.`, `_` or `-`, and never `..`. Pure.
import { z } from 'zod';

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Why `id` is not a usable run id, or null when it is. */
export function runIdProblem(id: string): string | null {
  if (RUN_ID.test(id) && !id.includes('..')) return null;
  const shown = JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
  return (
    `run id ${shown} is not allowed: a run id is 1-128 letters, digits, '.', '_' or '-', starts with a ` +
    `letter or digit and holds no '..'`
  );
}

export const RunIdSchema = z.string().superRefine((id, ctx) => {
  const problem = runIdProblem(id);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
