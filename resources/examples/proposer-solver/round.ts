// One proposer–solver round across two workers: an episode on the proposer's worker wraps one on the
// solver's (one episode per model). The proposer model (worker A's key) writes a question, the solver
// model (worker B's key) plays it as a calculator-agent episode; each episode ends with its own
// reward. `client.episode` aborts the inner one, then the outer one, if anything throws (or on
// SIGTERM with installSignalHandlers, or past the deadline), so neither is ever half-counted.
import type { EpisodeContext, SwarmClient } from '../../../src/sdk/index';
import type { Policy } from '../../../src/shared/episode';
import { runEpisode } from '../../../src/shared/episode';
import type { TaskScore } from '../../../src/shared/task';
import { calculatorEnv } from '../calculator-agent/env';
import {
  parseProposal,
  proposalText,
  proposerMessages,
  PROPOSER_TOOLS,
  type Proposal,
  type ProposerTask,
} from './proposal';
import { proposerScore, solverScore } from './reward';
import { solverTask, worded } from './solver-task';

/** Builds a chat policy from one episode's credentials (baseUrl, apiKey, model, signal). */
export type PolicyFactory = (ctx: EpisodeContext) => Policy;

export interface RoundClients {
  proposer: SwarmClient;
  solver: SwarmClient;
}

export interface RoundResult {
  taskId: string;
  proposal: Proposal;
  question: string;
  proposer: { episodeId: string; score: TaskScore };
  solver: { episodeId: string; score: TaskScore };
}

export async function playRound(
  clients: RoundClients,
  task: ProposerTask,
  policyFor: PolicyFactory,
  deadlineMs = 60_000,
  /** `eval`: held-out rounds, played on both workers as eval episodes (never trained on). */
  kind: 'train' | 'eval' = 'train',
): Promise<RoundResult> {
  let inner: Omit<RoundResult, 'proposer'> | undefined;
  const outer = await clients.proposer.episode(
    task,
    async (pctx) => {
      // The proposer's single turn, on worker A.
      const reply = await policyFor(pctx)(proposerMessages(task), PROPOSER_TOOLS);
      const proposal = parseProposal(proposalText(reply), task);
      const calc = solverTask(task, proposal);
      // The solver's calculator episode, on worker B (aborted along with this one if the outer signal fires).
      const solved = await clients.solver.episode(
        calc,
        async (sctx) => {
          const r = await runEpisode(calculatorEnv, calc, policyFor(sctx));
          const score = solverScore(r, proposal.ok);
          return { ...score, metrics: { ...score.metrics, turns: r.turns, worded: worded(calc) } };
        },
        { deadlineMs, signal: pctx.signal, kind, role: 'solver' },
      );
      const solverResult: TaskScore = {
        reward: solved.result.reward,
        success: solved.result.success ?? false,
        metrics: solved.result.metrics ?? {},
      };
      inner = {
        taskId: task.id,
        proposal,
        question: calc.question,
        solver: { episodeId: solved.episodeId, score: solverResult },
      };
      return proposerScore(proposal, solverResult.success);
    },
    { deadlineMs, kind, role: 'proposer' },
  );
  if (!inner) throw new Error(`round ${task.id}: the solver episode did not finish`);
  const score: TaskScore = {
    reward: outer.result.reward,
    success: outer.result.success ?? false,
    metrics: outer.result.metrics ?? {},
  };
  return { ...inner, proposer: { episodeId: outer.episodeId, score } };
}
