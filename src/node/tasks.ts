// The example tasks of headless training and held-out eval: which tasks an example trains on (the
// cocktail mixes calculator-agent and guess-number) and which task a task id names, by prefix
// (`calc-…`, `guess-…`). Shared by `agentjet train` and the workbench's eval loop.
import { EXAMPLE_NAMES } from '../../resources/examples/index';

export const TRAIN_EXAMPLES = [...EXAMPLE_NAMES, 'cocktail'] as const;
export type TrainExample = (typeof TRAIN_EXAMPLES)[number];

export const TASK_KEYS = ['calc', 'guess'] as const;
export type TaskKey = (typeof TASK_KEYS)[number];

/** The tasks an example's clients play, in display order. */
export function exampleTasks(example: TrainExample): readonly TaskKey[] {
  if (example === 'calculator-agent') return ['calc'];
  if (example === 'guess-number') return ['guess'];
  return TASK_KEYS;
}

/** The task of a task id (`calc-train-12` → calc); null for any other id. */
export function taskOf(taskId: string): TaskKey | null {
  const prefix = taskId.split('-', 1)[0];
  return TASK_KEYS.find((k) => k === prefix) ?? null;
}
