// The research agent's tools over the campaign API: read the trials, a trial's curves and the
// search space; propose trials (each checked against the search space, with a written rationale);
// stop a running trial; write the report's analysis; end the turn. Results go back to the LLM as
// JSON text; every action is logged as a decision with its rationale.
import { z } from 'zod';
import { describeParam, type SearchSpace } from '../../../shared/campaign/space';
import type { LlmTool } from '../../llm/llm-client';

const Rationale = z.string().min(3).max(4000);
const ScalarSchema = z.union([z.string(), z.number(), z.boolean()]);

export const toolArgs = {
  list_trials: z.object({}).strict(),
  get_curve: z.object({ trial: z.number().int().min(0) }).strict(),
  search_space: z.object({}).strict(),
  propose_trials: z
    .object({
      trials: z
        .array(z.object({ params: z.record(z.string(), ScalarSchema), rationale: Rationale }))
        .min(1)
        .max(20),
    })
    .strict(),
  stop_trial: z.object({ trial: z.number().int().min(0), rationale: Rationale }).strict(),
  write_analysis: z.object({ text: z.string().min(10).max(20_000) }).strict(),
  finish_turn: z.object({ note: z.string().max(4000).optional() }).strict(),
} as const;
export type ToolName = keyof typeof toolArgs;

const obj = (properties: Record<string, unknown>, required: string[] = []): Record<string, unknown> => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

export const AGENT_TOOLS: LlmTool[] = [
  {
    name: 'list_trials',
    description:
      'Every trial so far: number, state (running/complete/pruned/failed), parameters, seed, objective value, training steps, and the reason it was pruned or failed.',
    parameters: obj({}),
    args: toolArgs.list_trials,
  },
  {
    name: 'get_curve',
    description: "One trial's evaluation points (objective metric per point) and its train reward per step.",
    parameters: obj({ trial: { type: 'integer' } }, ['trial']),
    args: toolArgs.get_curve,
  },
  {
    name: 'search_space',
    description:
      'The search space (every parameter and its domain), the objective, the budget left and your own limits left.',
    parameters: obj({}),
    args: toolArgs.search_space,
  },
  {
    name: 'propose_trials',
    description:
      'Queue configurations to run next, each with every search-space parameter set and a written rationale. Values outside the search space are refused with the reason.',
    parameters: obj(
      {
        trials: {
          type: 'array',
          items: obj({ params: { type: 'object' }, rationale: { type: 'string' } }, ['params', 'rationale']),
        },
      },
      ['trials'],
    ),
    args: toolArgs.propose_trials,
  },
  {
    name: 'stop_trial',
    description: 'Stop a running trial early (it is recorded as pruned, with your rationale).',
    parameters: obj({ trial: { type: 'integer' }, rationale: { type: 'string' } }, ['trial', 'rationale']),
    args: toolArgs.stop_trial,
  },
  {
    name: 'write_analysis',
    description:
      'Write (replace) the analysis section of the campaign report: what the trials show so far, in plain prose.',
    parameters: obj({ text: { type: 'string' } }, ['text']),
    args: toolArgs.write_analysis,
  },
  {
    name: 'finish_turn',
    description: 'End this turn; the campaign goes on and you are asked again after the next trial ends.',
    parameters: obj({ note: { type: 'string' } }),
    args: toolArgs.finish_turn,
  },
];

export function describeSpace(space: SearchSpace): Record<string, string> {
  return Object.fromEntries(Object.entries(space).map(([k, p]) => [k, describeParam(p)]));
}
