// A strip of tokens coloured by loss mask: trained tokens shaded by their logprob, context dimmed,
// whitespace visible. Long strips render in memoised chunks up to a cap that "show more" raises.
import { memo, useState, type MouseEvent } from 'react';
import type { TokenView } from '../../../../shared/workbench-api';
import { chunkRanges, displayToken, logprobColor, tokenDescription, tokenTitle, visibleTokenCount } from './tokens';

const CHUNK = 256;
export const STRIP_CAP = 1500;

const TokenChunk = memo(function TokenChunk(props: {
  tokens: readonly TokenView[];
  start: number;
  end: number;
  showWhitespace: boolean;
}) {
  const spans = [];
  for (let i = props.start; i < props.end; i++) {
    const t = props.tokens[i]!;
    const background = t.mask === 1 ? logprobColor(t.logprob) : null;
    spans.push(
      <span
        key={i}
        className={t.mask === 1 ? 'tok tr' : 'tok ctx'}
        data-i={i}
        data-mask={t.mask}
        title={tokenTitle(t)}
        style={background ? { backgroundColor: background } : undefined}
      >
        {displayToken(t.text, props.showWhitespace)}
      </span>,
    );
  }
  return <>{spans}</>;
});

export interface TokenStripProps {
  tokens: readonly TokenView[];
  /** First token to show (tokens before it are summarised, with a button to show them). */
  from?: number;
  showWhitespace: boolean;
  cap?: number;
}

export function TokenStrip(props: TokenStripProps) {
  const cap = props.cap ?? STRIP_CAP;
  const [from, setFrom] = useState<number | null>(null);
  const start = Math.min(props.tokens.length, Math.max(0, from ?? props.from ?? 0));
  const [shown, setShown] = useState(cap);
  const rest = props.tokens.length - start;
  const count = visibleTokenCount(rest, shown);
  const end = start + count;
  const [hovered, setHovered] = useState<number | null>(null);
  const onMouseOver = (e: MouseEvent<HTMLDivElement>): void => {
    const el = e.target instanceof Element ? e.target.closest('.tok') : null;
    const i = el ? Number(el.getAttribute('data-i')) : Number.NaN;
    setHovered(Number.isInteger(i) && i >= 0 && i < props.tokens.length ? i : null);
  };
  const hoveredToken = hovered === null ? undefined : props.tokens[hovered];
  return (
    <div className="in-strip" onMouseOver={onMouseOver} onMouseLeave={() => setHovered(null)}>
      {start > 0 && (
        <button type="button" className="in-more" onClick={() => setFrom(0)}>
          … {start} earlier token{start === 1 ? '' : 's'} hidden — show
        </button>
      )}
      {chunkRanges(count, CHUNK).map(([a, b]) => (
        <TokenChunk
          key={`${start + a}-${props.showWhitespace}`}
          tokens={props.tokens}
          start={start + a}
          end={start + b}
          showWhitespace={props.showWhitespace}
        />
      ))}
      {end < props.tokens.length && (
        <span className="in-more-row">
          <button type="button" className="in-more" onClick={() => setShown((s) => s + cap)}>
            show {Math.min(cap, props.tokens.length - end)} more
          </button>
          <button type="button" className="in-more" onClick={() => setShown(props.tokens.length)}>
            show all {props.tokens.length - end} remaining
          </button>
        </span>
      )}
      {hoveredToken && (
        <div className="in-readout">
          #{hovered} {tokenDescription(hoveredToken)}
        </div>
      )}
    </div>
  );
}
