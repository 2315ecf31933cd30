// The label queue: the episodes (or pairs of one task group) the newest reward model is least sure
// about, one at a time, conversations side by side; label with the keyboard (G / B, 1 / 2, S to skip)
// and the next proposal comes up.
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import type { Conversation } from '../../../../shared/reward-model';
import type { NewLabel, QueueItem } from '../../../../shared/rewards-api';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { errorMessage } from '../../store/toasts';
import { ConversationView } from './ConversationView';
import { LABEL_KEY_HELP, labelAction, type LabelAction } from './label-keys';

type Mode = 'auto' | 'points' | 'pairs' | 'top';
const MODES: { value: Mode; label: string }[] = [
  { value: 'auto', label: 'auto' },
  { value: 'pairs', label: 'pairs of a task' },
  { value: 'points', label: 'single episodes' },
  { value: 'top', label: 'highest scored (hacking audit)' },
];

/** How the queue is ordered (by which reward model, if any) and how many episodes it drew from. */
function queueOrderText(meta: { rewardModel: number | null; candidates: number }): string {
  const order =
    meta.rewardModel === null ? 'no reward model yet: newest first' : `ranked by reward model v${meta.rewardModel}`;
  return `${order} · ${meta.candidates} candidates`;
}

/** The label an action gives the item (null: the action does not apply to it, or it is a skip). */
export function labelFor(item: QueueItem, action: LabelAction): NewLabel | null {
  if (item.kind === 'point' && (action === 'good' || action === 'bad'))
    return { kind: action, episodeId: item.episodeId };
  if (item.kind === 'pair' && (action === 'prefer-left' || action === 'prefer-right')) {
    const [win, lose] =
      action === 'prefer-left' ? [item.episodeId, item.otherEpisodeId] : [item.otherEpisodeId, item.episodeId];
    return { kind: 'prefer', episodeId: win, otherEpisodeId: lose };
  }
  return null;
}

const episodesOf = (item: QueueItem): string[] =>
  item.kind === 'pair' ? [item.episodeId, item.otherEpisodeId] : [item.episodeId];

/** The queue of proposals in `mode`, the one shown, and moving on (past the last one: a fresh queue). */
function useQueue(api: WorkbenchApi, runId: string, mode: Mode) {
  const [items, setItems] = useState<QueueItem[]>([]);
  const [meta, setMeta] = useState<{ rewardModel: number | null; candidates: number } | null>(null);
  const [index, setIndex] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [reload, setReload] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    api.labelQueue({ runId, limit: 20, mode }).then(
      (q) => {
        if (!live) return;
        setItems(q.items);
        setMeta({ rewardModel: q.rewardModel, candidates: q.candidates });
        setIndex(0);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (!live) return;
        setError(errorMessage(err));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [api, runId, mode, reload]);
  const advance = useCallback(() => {
    if (index + 1 < items.length) setIndex(index + 1);
    else setReload((r) => r + 1);
  }, [index, items.length]);
  return {
    items,
    meta,
    index,
    item: items[index] ?? null,
    error,
    setError,
    loading,
    advance,
    refresh: () => setReload((r) => r + 1),
  };
}

/** The conversations of the item's episodes (null where one could not be loaded). */
function useConversations(api: WorkbenchApi, runId: string, item: QueueItem | null): (Conversation | null)[] {
  const [convs, setConvs] = useState<(Conversation | null)[]>([]);
  useEffect(() => {
    let live = true;
    setConvs([]);
    if (!item) return;
    Promise.all(
      episodesOf(item).map((episodeId) => api.episodeConversation({ runId, episodeId }).catch(() => null)),
    ).then((c) => live && setConvs(c));
    return () => {
      live = false;
    };
  }, [api, runId, item]);
  return convs;
}

/** Label keys act on the queue while it is visible (and no input has the focus). */
function useLabelKeys(ref: RefObject<HTMLDivElement | null>, act: (a: LabelAction) => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (!ref.current || ref.current.offsetParent === null) return;
      const action = labelAction({
        key: e.key,
        ctrlKey: e.ctrlKey,
        metaKey: e.metaKey,
        altKey: e.altKey,
        target: e.target instanceof HTMLElement ? e.target : null,
      });
      if (!action || action === 'clear') return;
      e.preventDefault();
      act(action);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ref, act]);
}

function QueueSides({ item, convs }: { item: QueueItem; convs: readonly (Conversation | null)[] }) {
  return (
    <div className={`rw-sides ${item.kind}`} data-testid="queue-item" data-kind={item.kind}>
      {episodesOf(item).map((id, side) => (
        <div key={id} className="rw-side">
          <div className="rw-side-head">
            {item.kind === 'pair' ? <strong>{side === 0 ? '1' : '2'}</strong> : null}
            <code title={id}>{id.slice(0, 22)}</code>
            <span className="muted">{item.taskId ?? ''}</span>
            {item.kind === 'pair' && item.scores ? (
              <span className="muted">score {item.scores[side]!.toFixed(2)}</span>
            ) : null}
            {item.kind === 'point' && item.score !== null ? (
              <span className="muted">score {item.score.toFixed(2)}</span>
            ) : null}
          </div>
          {convs[side] ? <ConversationView messages={convs[side]!.messages} /> : <div className="muted">loading…</div>}
        </div>
      ))}
    </div>
  );
}

function QueueActions({ item, act }: { item: QueueItem; act: (a: LabelAction) => void }) {
  return (
    <div className="rw-actions">
      {item.kind === 'pair' ? (
        <>
          <button type="button" data-testid="prefer-left" onClick={() => act('prefer-left')}>
            1 is better
          </button>
          <button type="button" data-testid="prefer-right" onClick={() => act('prefer-right')}>
            2 is better
          </button>
        </>
      ) : (
        <>
          <button type="button" data-testid="queue-good" onClick={() => act('good')}>
            good (G)
          </button>
          <button type="button" data-testid="queue-bad" onClick={() => act('bad')}>
            bad (B)
          </button>
        </>
      )}
      <button type="button" onClick={() => act('skip')}>
        skip (S)
      </button>
    </div>
  );
}

export function LabelQueueView({
  api,
  runId,
  onLabelled,
}: {
  api: WorkbenchApi;
  runId: string;
  onLabelled: () => void;
}) {
  const [mode, setMode] = useState<Mode>('auto');
  const q = useQueue(api, runId, mode);
  const { item, advance, setError } = q;
  const convs = useConversations(api, runId, item);
  const ref = useRef<HTMLDivElement>(null);
  const act = useCallback(
    (action: LabelAction) => {
      if (!item) return;
      if (action === 'skip') return advance();
      const label = labelFor(item, action);
      if (!label) return;
      api.putLabel({ runId, label }).then(
        () => {
          onLabelled();
          advance();
        },
        (err: unknown) => setError(errorMessage(err)),
      );
    },
    [api, runId, item, advance, onLabelled, setError],
  );
  useLabelKeys(ref, act);

  return (
    <div className="card rw-queue" ref={ref} data-testid="label-queue" data-items={q.items.length}>
      <div className="rw-head">
        <span className="chart-title">Label queue</span>
        <select
          value={mode}
          onChange={(e) => setMode(MODES.find((m) => m.value === e.target.value)?.value ?? 'auto')}
          aria-label="queue mode"
        >
          {MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
        <span className="muted">
          {q.meta ? queueOrderText(q.meta) : ''}
          {item ? ` · ${q.index + 1}/${q.items.length} · uncertainty ${item.uncertainty.toFixed(2)}` : ''}
        </span>
        <button type="button" onClick={q.refresh}>
          refresh
        </button>
      </div>
      <div className="muted rw-keys">
        {LABEL_KEY_HELP.filter(([, what]) => !what.startsWith('clear'))
          .map(([k, what]) => `${k} ${what}`)
          .join(' · ')}
      </div>
      {q.error && (
        <div className="error" role="alert">
          {q.error}
        </div>
      )}
      {!item && !q.loading && (
        <div className="chart-empty">
          Nothing to label: every recent ended episode {mode === 'pairs' ? 'pair ' : ''}has a label, or none has stored
          calls yet.
        </div>
      )}
      {item && <QueueSides item={item} convs={convs} />}
      {item && <QueueActions item={item} act={act} />}
    </div>
  );
}
