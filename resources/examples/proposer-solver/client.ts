// Proposer–solver swarm client: one SwarmClient per role (AGENTJET_PROPOSER_URL trains the proposer
// model, AGENTJET_SOLVER_URL the solver model; joined with AGENTJET_PROPOSER_JOIN_TOKEN and
// AGENTJET_SOLVER_JOIN_TOKEN, or both with AGENTJET_JOIN_TOKEN); each round claims an episode for both
// roles, routes each role's calls to its own worker and ends both. Both URLs may name one worker (a
// model shared by both roles: it plays, and trains on, both roles' episodes).
import { SwarmClient, installSignalHandlers } from '../../../src/sdk/index';
import { createPrng, fnv1a } from '../../../src/shared/prng';
import { fetchPolicy } from '../fetch-policy';
import { generateProposerTasks } from './proposal';
import { playRound } from './round';

const env = process.env;
const proposerUrl = env['AGENTJET_PROPOSER_URL'];
const solverUrl = env['AGENTJET_SOLVER_URL'];
const proposerToken = env['AGENTJET_PROPOSER_JOIN_TOKEN'] ?? env['AGENTJET_JOIN_TOKEN'];
const solverToken = env['AGENTJET_SOLVER_JOIN_TOKEN'] ?? env['AGENTJET_JOIN_TOKEN'];
if (!proposerUrl || !solverUrl || !proposerToken || !solverToken) {
  console.error('set AGENTJET_PROPOSER_URL, AGENTJET_SOLVER_URL and AGENTJET_JOIN_TOKEN (or one per role)');
  process.exit(2);
}
const clientId = env['AGENTJET_CLIENT_ID'] ?? `proposer-solver-${process.pid}`;
const maxTokens = Number(env['AGENTJET_MAX_TOKENS']) || undefined;
const limit = Number(env['AGENTJET_MAX_EPISODES']) || Infinity;
const clients = {
  proposer: new SwarmClient({ url: proposerUrl, joinToken: proposerToken, clientId: `${clientId}-proposer` }),
  solver: new SwarmClient({ url: solverUrl, joinToken: solverToken, clientId: `${clientId}-solver` }),
};
installSignalHandlers();
const tasks = generateProposerTasks(200);
const rng = createPrng(fnv1a(clientId));

for (let n = 0; n < limit; n++) {
  const task = rng.pick(tasks);
  try {
    const r = await playRound(clients, task, ({ baseUrl, apiKey, model, signal }) =>
      fetchPolicy({ baseUrl, apiKey, model, signal, ...(maxTokens ? { maxTokens } : {}) }),
    );
    console.log(
      JSON.stringify({
        task: r.taskId,
        question: r.question,
        proposer: r.proposer.score.reward,
        solver: r.solver.score.reward,
        proposerEpisode: r.proposer.episodeId,
        solverEpisode: r.solver.episodeId,
      }),
    );
  } catch (err) {
    console.error(`${task.id}: round failed: ${err instanceof Error ? err.message : String(err)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
