// Locations of the bundled resources (built-in model, example tasks) on disk.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUILTIN_MODEL_NAME = 'agentjet-tiny';
export const BUILTIN_MODEL_DIR = join(REPO_ROOT, 'resources', 'models', BUILTIN_MODEL_NAME);
export const EXAMPLES_DIR = join(REPO_ROOT, 'resources', 'examples');
