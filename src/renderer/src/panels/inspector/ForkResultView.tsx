// A fork's answer: the recorded turn and the K continuations side by side, each with its text,
// a strip of its per-token logprobs (hover for the value), its mean logprob, finish reason, and
// the reward it would get if the episode ended there (the run's reward code, in a child process).
import type { ForkContinuation } from '../../../../shared/swarm-inner-loop';
import { meanLogprob, rewardLabel, type ForkAnswer } from './fork-view';
import { logprobColor } from './tokens';

function LogprobStrip({ logprobs }: { logprobs: readonly number[] }) {
  return (
    <div className="in-fork-lp" aria-label="per-token logprobs">
      {logprobs.map((lp, i) => (
        <span
          key={i}
          title={String(Number(lp.toFixed(4)))}
          style={{ backgroundColor: logprobColor(lp) ?? undefined }}
        />
      ))}
    </div>
  );
}

function Column(props: {
  title: string;
  c: ForkContinuation;
  reward: ForkAnswer['rewards']['continuations'][number] | null | undefined;
  recorded?: boolean;
}) {
  const { c } = props;
  const mean = meanLogprob(c.logprobs);
  const reward = rewardLabel(props.reward);
  return (
    <article
      className={`in-fork-col${props.recorded ? ' recorded' : ''}`}
      data-testid={props.recorded ? 'fork-recorded' : 'fork-continuation'}
      data-reward={props.reward?.ok ? props.reward.reward : ''}
    >
      <header>
        <strong>{props.title}</strong>
        <span className="in-muted">
          {c.tokenIds.length} tok · {c.finishReason}
          {mean === null ? '' : ` · mean logprob ${mean.toFixed(3)}`}
        </span>
        <span className={reward.error ? 'in-error' : 'in-fork-reward'} data-testid="fork-reward">
          {reward.text}
        </span>
      </header>
      <LogprobStrip logprobs={c.logprobs} />
      <pre className="in-fork-text">{c.text}</pre>
    </article>
  );
}

export function ForkResultView({ result }: { result: ForkAnswer }) {
  const { rewards } = result;
  return (
    <div className="in-fork-result" data-testid="fork-result" data-continuations={result.continuations.length}>
      <p className="in-note">
        {result.continuations.length} continuation{result.continuations.length === 1 ? '' : 's'} with weights w
        {result.weightVersion}
        {result.edited ? ` after the edited ${result.edited} message` : ''}
        {rewards.file ? ` · rewards by ${rewards.file.split('/').at(-1)}` : ''}
        {rewards.note ? ` · ${rewards.note}` : ''}
      </p>
      <div className="in-fork-cols">
        <Column title="recorded" c={result.recorded} reward={rewards.recorded} recorded />
        {result.continuations.map((c, i) => (
          <Column key={i} title={`#${i + 1}`} c={c} reward={rewards.continuations[i]} />
        ))}
      </div>
    </div>
  );
}
