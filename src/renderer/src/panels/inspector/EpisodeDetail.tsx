// One episode: a summary header with the merge statistics, then its calls and its merged samples
// side by side — the samples an update trained (with its step and settings), or a preview of an
// episode not trained (yet). Hovering a call highlights the sample that trains it, and the other way round.
import { memo, useState } from 'react';
import type { CallView, EpisodeDetail, SampleView, WorkbenchApi } from '../../../../shared/workbench-api';
import { breakCauseDetail, breakCauseLabel } from './break-cause';
import { formatClock, formatDuration, formatReward, formatSuccess } from './episode-query';
import { ForkHere } from './ForkHere';
import { TokenStrip } from './TokenStrip';
import { logprobColor, outputStart, stripStats } from './tokens';

type Hover =
  | { kind: 'call'; timelineId: string; sampleIndex: number | null }
  | { kind: 'sample'; index: number; timelineIds: string[] }
  | null;

/** What Fork here needs (the live worker samples it); absent: no fork buttons. */
export interface ForkContext {
  api: WorkbenchApi;
  runId: string;
  live: boolean;
}

export function EpisodeDetailView(props: { detail: EpisodeDetail; fork?: ForkContext | undefined }) {
  const { episode, calls, samples, trained } = props.detail;
  const [hover, setHover] = useState<Hover>(null);
  const [showWhitespace, setShowWhitespace] = useState(true);
  const [showPrompts, setShowPrompts] = useState(false);
  const callLit = (c: CallView): boolean =>
    (hover?.kind === 'call' && hover.timelineId === c.timelineId) ||
    (hover?.kind === 'sample' && hover.timelineIds.includes(c.timelineId));
  const sampleLit = (s: SampleView): boolean =>
    (hover?.kind === 'sample' && hover.index === s.index) ||
    (hover?.kind === 'call' && (hover.sampleIndex === s.index || s.timelineIds.includes(hover.timelineId)));

  return (
    <div className="in-detail" data-testid="episode-detail" data-episode-id={episode.episodeId}>
      <header className="in-summary">
        <div className="in-summary-title">
          <code title={episode.episodeId}>{episode.episodeId}</code>
          <span className={`in-status ${episode.status}`}>{episode.status}</span>
          <span className="in-chip">{episode.kind}</span>
        </div>
        <EpisodeFacts detail={props.detail} />
        <ViewOptions
          showWhitespace={showWhitespace}
          showPrompts={showPrompts}
          onWhitespace={setShowWhitespace}
          onPrompts={setShowPrompts}
        />
      </header>
      {!episode.hasTimelines && (
        <p className="in-note">
          The timelines of this episode are not stored yet (it is still running, or the worker has not sent them).
        </p>
      )}
      <div className="in-columns">
        <section className="in-column">
          <h3>Calls ({calls.length})</h3>
          {calls.map((c) => (
            <CallBlock
              key={c.timelineId}
              call={c}
              lit={callLit(c)}
              showWhitespace={showWhitespace}
              showPrompt={showPrompts}
              onHover={setHover}
              fork={props.fork}
              episodeId={episode.episodeId}
            />
          ))}
        </section>
        <section className="in-column">
          <h3>Merged samples ({samples.length})</h3>
          <Provenance trained={trained} hasSamples={samples.length > 0} />
          {samples.map((s) => (
            <SampleBlock
              key={s.index}
              sample={s}
              calls={calls}
              lit={sampleLit(s)}
              showWhitespace={showWhitespace}
              onHover={setHover}
            />
          ))}
          {samples.length === 0 && <p className="in-note">No merged samples.</p>}
        </section>
      </div>
    </div>
  );
}

function EpisodeFacts({ detail }: { detail: EpisodeDetail }) {
  const { episode, samples, stats } = detail;
  const breaks = stats ? Object.entries(stats.breakCounts).filter(([, n]) => n > 0) : [];
  return (
    <dl className="in-facts">
      <Fact label="task" value={episode.taskId ?? '—'} />
      {episode.role !== null && <Fact label="role" value={episode.role} />}
      <Fact label="reward" value={formatReward(episode.reward)} />
      <Fact label="success" value={formatSuccess(episode.success)} />
      <Fact label="client" value={episode.clientId} />
      <Fact
        label="code"
        value={episode.codeVersion ? episode.codeVersion.slice(0, 8) : '—'}
        title={episode.codeVersion ?? undefined}
      />
      <Fact label="calls" value={String(episode.calls)} />
      <Fact label="started" value={formatClock(episode.createdAt)} />
      <Fact label="took" value={formatDuration(episode.createdAt, episode.finishedAt)} />
      {stats && (
        <Fact
          label="tokens"
          value={`${stats.tokensBefore.toLocaleString()} → ${stats.tokensAfter.toLocaleString()}`}
          title="Σ prompt+output over calls → Σ sample lengths"
        />
      )}
      {stats && <Fact label="compression" value={`${stats.compressionRatio.toFixed(2)}×`} />}
      {stats && <Fact label="samples" value={String(samples.length)} />}
      {breaks.length > 0 && (
        <Fact label="chain breaks" value={breaks.map(([c, n]) => `${n} ${c.replaceAll('_', ' ')}`).join(', ')} />
      )}
    </dl>
  );
}

function ViewOptions(props: {
  showWhitespace: boolean;
  showPrompts: boolean;
  onWhitespace: (on: boolean) => void;
  onPrompts: (on: boolean) => void;
}) {
  const { showWhitespace, showPrompts } = props;
  return (
    <div className="in-view-options">
      <label>
        <input type="checkbox" checked={showWhitespace} onChange={(e) => props.onWhitespace(e.target.checked)} />{' '}
        whitespace
      </label>
      <label>
        <input type="checkbox" checked={showPrompts} onChange={(e) => props.onPrompts(e.target.checked)} /> full prompts
        in calls
      </label>
      <span className="in-legend">
        <span className="in-legend-item tr" style={{ backgroundColor: logprobColor(0) ?? undefined }}>
          trained, p≈1
        </span>
        <span className="in-legend-item tr" style={{ backgroundColor: logprobColor(-5) ?? undefined }}>
          trained, p≈0
        </span>
        <span className="in-legend-item ctx">context</span>
      </span>
    </div>
  );
}

/** Where the samples come from: the update that trained them, or a preview. */
function Provenance({ trained, hasSamples }: { trained: EpisodeDetail['trained']; hasSamples: boolean }) {
  if (trained) {
    const adv = `${trained.advantage >= 0 ? '+' : ''}${trained.advantage.toFixed(3)}`;
    return (
      <p className="in-note" data-testid="samples-provenance" data-trained-step={trained.step}>
        {hasSamples ? 'Trained' : 'Not trained (no signal)'} at step {trained.step} → w{trained.weightVersion} ·{' '}
        {trained.algo} advantage {adv} · merge {trained.merge}/{trained.level}
      </p>
    );
  }
  if (!hasSamples) return null;
  return (
    <p className="in-note" data-testid="samples-provenance">
      Preview: not trained (yet); merged with the worker&apos;s settings at the episode&apos;s end.
    </p>
  );
}

function Fact(props: { label: string; value: string; title?: string | undefined }) {
  return (
    <div className="in-fact" title={props.title}>
      <dt>{props.label}</dt>
      <dd>{props.value}</dd>
    </div>
  );
}

const CallBlock = memo(function CallBlock(props: {
  call: CallView;
  lit: boolean;
  showWhitespace: boolean;
  showPrompt: boolean;
  onHover: (h: Hover) => void;
  fork: ForkContext | undefined;
  episodeId: string;
}) {
  const { call } = props;
  const st = stripStats(call.tokens);
  return (
    <article
      className={`in-block${props.lit ? ' lit' : ''}${call.breakCause ? ' broke' : ''}`}
      data-testid="call-view"
      data-timeline-id={call.timelineId}
      onMouseEnter={() => props.onHover({ kind: 'call', timelineId: call.timelineId, sampleIndex: call.sampleIndex })}
      onMouseLeave={() => props.onHover(null)}
    >
      {call.breakCause && (
        <div
          className="in-break"
          data-testid="break-cause"
          data-cause={call.breakCause}
          title={breakCauseDetail(call.breakCause)}
        >
          <strong>chain split: {breakCauseLabel(call.breakCause)}</strong> — {breakCauseDetail(call.breakCause)}
        </div>
      )}
      <div className="in-block-head">
        <span>call #{call.callIndex}</span>
        <span className="in-chip">{call.agent}</span>
        <span className="in-muted">w{call.weightVersion}</span>
        <span className="in-muted">
          {call.promptTokens} prompt + {call.tokens.length - call.promptTokens} out
        </span>
        <span className="in-muted">finish: {call.finishReason}</span>
        {st.meanLogprob !== null && <span className="in-muted">mean logprob {st.meanLogprob.toFixed(3)}</span>}
        <span className="in-spacer" />
        <span className={call.sampleIndex === null ? 'in-muted' : 'in-link-sample'}>
          {call.sampleIndex === null ? 'not trained' : `→ sample #${call.sampleIndex}`}
        </span>
      </div>
      <TokenStrip
        key={props.showPrompt ? 'full' : 'tail'}
        tokens={call.tokens}
        from={props.showPrompt ? 0 : outputStart(call.tokens, 48)}
        showWhitespace={props.showWhitespace}
      />
      {props.fork && <ForkHere {...props.fork} episodeId={props.episodeId} callIndex={call.callIndex} />}
    </article>
  );
});

const SampleBlock = memo(function SampleBlock(props: {
  sample: SampleView;
  calls: CallView[];
  lit: boolean;
  showWhitespace: boolean;
  onHover: (h: Hover) => void;
}) {
  const { sample } = props;
  const st = stripStats(sample.tokens);
  const absorbed = props.calls.filter((c) => sample.timelineIds.includes(c.timelineId)).map((c) => `#${c.callIndex}`);
  return (
    <article
      className={`in-block${props.lit ? ' lit' : ''}`}
      data-testid="sample-view"
      data-sample-index={sample.index}
      onMouseEnter={() => props.onHover({ kind: 'sample', index: sample.index, timelineIds: sample.timelineIds })}
      onMouseLeave={() => props.onHover(null)}
    >
      <div className="in-block-head">
        <span>sample #{sample.index}</span>
        <span className="in-chip">{sample.kind}</span>
        <span className="in-muted">
          {st.total} tokens · {st.trained} trained in {st.trainedRuns} span{st.trainedRuns === 1 ? '' : 's'}
        </span>
        <span className="in-spacer" />
        <span className="in-muted">
          absorbs calls {absorbed.length > 0 ? absorbed.join(', ') : sample.timelineIds.length}
        </span>
      </div>
      <TokenStrip tokens={sample.tokens} showWhitespace={props.showWhitespace} />
    </article>
  );
});
