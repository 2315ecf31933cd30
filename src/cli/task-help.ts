// `agentjet task` help text (kept apart so other commands load none of the task-check code).
export const taskHelp = [
  'agentjet task new DIR --describe "…" [options]   vibe training: an LLM writes client.ts, reward.ts and',
  '                             data/{train,eval}.jsonl from the template, `task check` judges them, failures go back',
  '  --endpoint URL --model M --api-key K   any OpenAI-compatible LLM (or AGENTJET_LLM_ENDPOINT / _MODEL / _API_KEY)',
  '  --rounds N                 generate → check → fix rounds at most (default 3)',
  '  --smoke N                  smoke episodes per check against a local built-in-model worker (default 3; 0: none)',
  '  agentjet task check DIR [--smoke N] [--worker URL --admin-token T --join-token J]   is the task ready to train?',
  '                             typecheck, bundle, dataset rows, reward on samples and rewardExamples, smoke episodes;',
  '                             the verdict (JSON) on stdout, exit code 1 when it fails',
].join('\n');
