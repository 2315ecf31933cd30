// Folders named after a run (`<data>/runs/<id>`, `<data>/exports/<id>-<stamp>`): the id is checked
// against the run-id pattern and the resolved path must lie inside its root, so a stored or requested
// id like `../../escape` can never place files elsewhere.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { runIdProblem } from '../shared/run-id';
import { WorkbenchError } from '../shared/workbench-api';

/** `<root>/<runId><suffix>`, resolved; throws `invalid_input` for a bad id or a path outside `root`. */
export function runPath(root: string, runId: string, suffix = ''): string {
  const problem = runIdProblem(runId);
  if (problem) throw new WorkbenchError('invalid_input', problem);
  const base = resolve(root);
  const path = resolve(base, `${runId}${suffix}`);
  const rel = relative(base, path);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new WorkbenchError('invalid_input', `${path} is outside ${base}`);
  return path;
}
