// The inspector's labels for the selected episode: its current labels (who, when, which code version),
// Good / Bad / Clear (keys G, B, X), and a preference over another episode of the same task group.
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import type { Label, NewLabel } from '../../../../shared/rewards-api';
import type { EpisodeRow, WorkbenchApi } from '../../../../shared/workbench-api';
import { relativeTime } from '../../format';
import { errorMessage } from '../../store/toasts';
import { labelAction } from '../rewards/label-keys';

/** The other ended episodes of the episode's task group that have stored calls (candidates to prefer it over). */
function useSiblings(api: WorkbenchApi, runId: string, episode: EpisodeRow): EpisodeRow[] {
  const [siblings, setSiblings] = useState<EpisodeRow[]>([]);
  const id = episode.episodeId;
  useEffect(() => {
    let live = true;
    setSiblings([]);
    if (episode.taskId === null) return;
    api
      .episodes({ runId, filter: { task: episode.taskId, status: 'ended' }, offset: 0, limit: 100, order: 'newest' })
      .then(
        (p) =>
          live &&
          setSiblings(p.rows.filter((r) => r.taskId === episode.taskId && r.episodeId !== id && r.hasTimelines)),
        () => undefined,
      );
    return () => {
      live = false;
    };
  }, [api, runId, id, episode.taskId]);
  return siblings;
}

function LabelChips({ labels, id }: { labels: readonly Label[]; id: string }) {
  const now = Date.now();
  return (
    <span className="in-label-list" data-testid="label-list">
      {labels.map((l) => (
        <span
          key={l.id}
          className={`in-chip in-label ${l.kind === 'prefer' ? (l.episodeId === id ? 'good' : 'bad') : l.kind}`}
          title={`${l.author} · ${l.source} · code ${l.codeVersion?.slice(0, 8) ?? '—'}`}
        >
          {l.kind === 'prefer'
            ? l.episodeId === id
              ? `≻ ${l.otherEpisodeId?.slice(0, 10)}`
              : `≺ ${l.episodeId.slice(0, 10)}`
            : l.kind}{' '}
          · {l.author} · {relativeTime(now, l.createdAt)}
        </span>
      ))}
    </span>
  );
}

export function LabelBar({ api, runId, episode }: { api: WorkbenchApi; runId: string; episode: EpisodeRow }) {
  const id = episode.episodeId;
  const siblings = useSiblings(api, runId, episode);
  const { labels, author, error, put, clear } = useEpisodeLabels(api, runId, id);
  const ref = useRef<HTMLDivElement>(null);
  useLabelKeys(ref, id, put, clear);

  return (
    <div className="in-labels" ref={ref} data-testid="label-bar">
      <span className="in-muted">labels</span>
      <button
        type="button"
        data-testid="label-good"
        title="Label good (G)"
        onClick={() => put({ kind: 'good', episodeId: id })}
      >
        👍 good <kbd>G</kbd>
      </button>
      <button
        type="button"
        data-testid="label-bad"
        title="Label bad (B)"
        onClick={() => put({ kind: 'bad', episodeId: id })}
      >
        👎 bad <kbd>B</kbd>
      </button>
      <button
        type="button"
        title={`Remove ${author ?? 'your'}'s labels of this episode (X)`}
        onClick={() => void clear()}
      >
        clear <kbd>X</kbd>
      </button>
      <PreferPicker
        id={id}
        siblings={siblings}
        onPrefer={(other) => put({ kind: 'prefer', episodeId: id, otherEpisodeId: other })}
      />
      <LabelChips labels={labels} id={id} />
      {error && (
        <span className="in-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

/** A preference of this episode over another of its task group: the picker and its button. */
function PreferPicker(props: { id: string; siblings: readonly EpisodeRow[]; onPrefer: (other: string) => void }) {
  const { siblings } = props;
  const [other, setOther] = useState('');
  useEffect(() => setOther(''), [props.id]);
  return (
    <>
      <select
        value={other}
        onChange={(e) => setOther(e.target.value)}
        aria-label="another episode of this task"
        disabled={siblings.length === 0}
      >
        <option value="">
          {siblings.length === 0 ? 'no other episode of this task' : `prefer over… (${siblings.length} of this task)`}
        </option>
        {siblings.map((s) => (
          <option key={s.episodeId} value={s.episodeId}>
            {s.episodeId.slice(0, 14)} · reward {s.reward ?? '—'}
          </option>
        ))}
      </select>
      <button type="button" disabled={other === ''} data-testid="label-prefer" onClick={() => props.onPrefer(other)}>
        prefer this
      </button>
    </>
  );
}

/** The episode's labels and who "you" are; adding a label and clearing your own reload them. */
function useEpisodeLabels(api: WorkbenchApi, runId: string, id: string) {
  const [labels, setLabels] = useState<Label[]>([]);
  const [author, setAuthor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let live = true;
    api.labels({ runId, episodeId: id }).then(
      (r) => {
        if (!live) return;
        setLabels(r.labels);
        setAuthor(r.author);
      },
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [api, runId, id, tick]);

  const put = useCallback(
    (label: NewLabel) => {
      setError(null);
      api.putLabel({ runId, label }).then(
        () => setTick((t) => t + 1),
        (err: unknown) => setError(errorMessage(err)),
      );
    },
    [api, runId],
  );

  const clear = useCallback(async () => {
    setError(null);
    try {
      const mine = labels.filter((l) => l.author === author);
      for (const l of mine) await api.deleteLabel({ runId, labelId: l.id });
      setTick((t) => t + 1);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, [api, runId, labels, author]);
  return { labels, author, error, put, clear };
}

/** Shortcuts while the inspector is shown (its section is hidden otherwise) and no field has focus. */
function useLabelKeys(
  ref: RefObject<HTMLDivElement | null>,
  id: string,
  put: (label: NewLabel) => void,
  clear: () => Promise<void>,
): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (!ref.current || ref.current.offsetParent === null) return;
      const t = e.target instanceof HTMLElement ? e.target : null;
      const action = labelAction({ key: e.key, ctrlKey: e.ctrlKey, metaKey: e.metaKey, altKey: e.altKey, target: t });
      if (action === 'good' || action === 'bad') put({ kind: action, episodeId: id });
      else if (action === 'clear') void clear();
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ref, put, clear, id]);
}
