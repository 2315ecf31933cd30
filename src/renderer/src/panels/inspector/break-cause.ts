// Why a call started a new chain instead of extending the previous one, in words (DESIGN §5).
import type { BreakCause } from '../../../../shared/timeline/types';

const EXPLANATIONS: Record<BreakCause, { label: string; detail: string }> = {
  token_drift: {
    label: 'token drift',
    detail:
      'The messages extend the previous call, but re-rendering them gave different token ids than the ones ' +
      'sampled (e.g. a re-tokenised assistant turn), so the exact sampled tokens could not be kept in one sequence.',
  },
  rewritten_history: {
    label: 'rewritten history',
    detail:
      'The conversation is not a continuation of the previous call: earlier messages were changed, dropped or ' +
      'truncated (summarised context, edited turns), so it starts a new chain.',
  },
  different_agent: {
    label: 'another agent',
    detail:
      'This call was made by a different agent of the episode than the previous one, so it continues that ' +
      'agent’s chain or starts its own.',
  },
  template_dropped_reasoning: {
    label: 'template dropped earlier reasoning',
    detail:
      'The messages extend the previous call, but the chat template no longer renders the reasoning of an ' +
      'earlier assistant turn (Qwen3 and gpt-oss drop it once a new user message follows), so the sampled ' +
      'tokens are not a prefix of this prompt. Serving with --keep-reasoning keeps it (docs/model-families.md).',
  },
  different_tools: {
    label: 'different tools',
    detail:
      'The request offered a different set of tools than the previous call, which changes the rendered prompt, ' +
      'so the sequences cannot be merged.',
  },
};

export function breakCauseLabel(cause: BreakCause): string {
  return EXPLANATIONS[cause].label;
}

export function breakCauseDetail(cause: BreakCause): string {
  return EXPLANATIONS[cause].detail;
}
