// The Timeline inspector: the run's episodes (filtered, virtualised) on the left; the selected
// episode's calls and merged samples, token by token with their loss masks, on the right.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { EpisodeDetail, EpisodeRow, WorkbenchApi } from '../../../../shared/workbench-api';
import { EpisodeDetailView } from './EpisodeDetail';
import { EpisodeFilters } from './EpisodeFilters';
import { EpisodeList } from './EpisodeList';
import { LabelBar } from './LabelBar';
import { EMPTY_FILTER_FORM, filterFromForm, type EpisodeOrder, type FilterForm } from './episode-query';
import './inspector.css';

const FILTER_DEBOUNCE_MS = 250;
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

type DetailState =
  | { kind: 'none' }
  | { kind: 'loading'; episodeId: string }
  | { kind: 'ready'; detail: EpisodeDetail }
  | { kind: 'error'; episodeId: string; message: string };

export function InspectorPanel(props: {
  api: WorkbenchApi;
  active: boolean;
  runId: string | null;
  live: boolean;
  lastEpisode: EpisodeRow | null;
}) {
  const { api, active, runId, live, lastEpisode } = props;
  const [form, setForm] = useState<FilterForm>(EMPTY_FILTER_FORM);
  const [applied, setApplied] = useState<FilterForm>(EMPTY_FILTER_FORM);
  const [order, setOrder] = useState<EpisodeOrder>('newest');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [detail, setDetail] = useState<DetailState>({ kind: 'none' });
  const [detailTick, setDetailTick] = useState(0);

  useEffect(() => {
    const t = setTimeout(() => setApplied(form), FILTER_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [form]);
  const { filter, errors } = useMemo(() => filterFromForm(applied), [applied]);

  // Another run: start without a selection.
  useEffect(() => {
    setSelectedId(null);
    setDetail({ kind: 'none' });
  }, [runId]);

  const liveTick = lastEpisode
    ? `${lastEpisode.episodeId}|${lastEpisode.status}|${lastEpisode.finishedAt ?? ''}|${String(lastEpisode.hasTimelines)}`
    : null;
  // The selected episode changed on the worker (ended, timelines stored): reload its detail.
  const selectedUpdated = lastEpisode !== null && lastEpisode.episodeId === selectedId ? liveTick : null;
  useEffect(() => {
    if (selectedUpdated !== null) setDetailTick((t) => t + 1);
  }, [selectedUpdated]);

  useEffect(() => {
    if (!runId || selectedId === null) return;
    let current = true;
    setDetail((d) =>
      d.kind === 'ready' && d.detail.episode.episodeId === selectedId ? d : { kind: 'loading', episodeId: selectedId },
    );
    api.episodeDetail({ runId, episodeId: selectedId }).then(
      (result) => current && setDetail({ kind: 'ready', detail: result }),
      (err: unknown) => current && setDetail({ kind: 'error', episodeId: selectedId, message: message(err) }),
    );
    return () => {
      current = false;
    };
  }, [api, runId, selectedId, detailTick]);

  // The samples an update trained of the selected episode arrived: show them instead of the preview.
  useEffect(
    () =>
      api.onEvent((e) => {
        if (e.type === 'trained' && e.runId === runId && e.episodeId === selectedId) setDetailTick((t) => t + 1);
      }),
    [api, runId, selectedId],
  );

  const onSelect = useCallback((row: EpisodeRow) => setSelectedId(row.episodeId), []);

  if (!runId) return <div className="in-panel in-placeholder">No run: connect to a worker or open a past run.</div>;

  return (
    <div className="in-panel">
      <div className="in-left">
        <EpisodeFilters
          form={form}
          order={order}
          errors={errors}
          onForm={setForm}
          onOrder={setOrder}
          onClear={() => setForm(EMPTY_FILTER_FORM)}
        />
        {/* A hidden list does not follow the live run; shown again, it refreshes at once. */}
        <EpisodeList
          api={api}
          runId={runId}
          filter={filter}
          order={order}
          live={live && active}
          liveTick={liveTick}
          selectedId={selectedId}
          onSelect={onSelect}
        />
      </div>
      <div className="in-right">
        {detail.kind === 'none' && (
          <div className="in-placeholder">Select an episode to see its calls and merged samples.</div>
        )}
        {detail.kind === 'loading' && <div className="in-placeholder">Loading episode {detail.episodeId}…</div>}
        {detail.kind === 'error' && (
          <div className="in-placeholder in-error" role="alert">
            Could not load episode {detail.episodeId}: {detail.message}{' '}
            <button type="button" onClick={() => setDetailTick((t) => t + 1)}>
              retry
            </button>
          </div>
        )}
        {detail.kind === 'ready' && <LabelBar api={api} runId={runId} episode={detail.detail.episode} />}
        {detail.kind === 'ready' && <EpisodeDetailView key={detail.detail.episode.episodeId} detail={detail.detail} />}
      </div>
    </div>
  );
}
