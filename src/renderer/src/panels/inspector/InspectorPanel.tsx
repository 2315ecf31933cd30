// The Timeline inspector: the run's episodes (filtered, virtualised) on the left; the selected
// episode's calls and merged samples, token by token with their loss masks, on the right.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { EpisodeRow, WorkbenchApi } from '../../../../shared/workbench-api';
import { useApp, type AppStore, type InspectRequest } from '../../store/store';
import { CompareBar } from './CompareBar';
import { EpisodeDetailView } from './EpisodeDetail';
import { EpisodeFilters } from './EpisodeFilters';
import { EpisodeList } from './EpisodeList';
import { LabelBar } from './LabelBar';
import { EMPTY_FILTER_FORM, episodeTick, type EpisodeOrder } from './episode-query';
import { useEpisodeDetail, useEpisodeFilter, type DetailState } from './use-episode-detail';
import './inspector.css';

export function InspectorPanel(props: {
  api: WorkbenchApi;
  store: AppStore;
  active: boolean;
  runId: string | null;
  live: boolean;
  lastEpisode: EpisodeRow | null;
}) {
  const { api, active, runId, live, lastEpisode } = props;
  const { form, setForm, filter, errors } = useEpisodeFilter();
  const [order, setOrder] = useState<EpisodeOrder>('newest');
  const { selectedId, setSelectedId, detail, reload } = useEpisodeDetail(api, runId, lastEpisode);

  const onSelect = useCallback((row: EpisodeRow) => setSelectedId(row.episodeId), [setSelectedId]);
  // Another panel asked to show an episode (reward try's changed episodes): select it, keep its comparison.
  const inspect = useApp(props.store, (s) => s.inspect);
  useEffect(() => {
    if (inspect && inspect.runId === runId) setSelectedId(inspect.episodeId);
  }, [inspect, runId, setSelectedId]);
  const compare = inspect && inspect.episodeId === selectedId ? inspect.compare : null;

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
          liveTick={episodeTick(lastEpisode)}
          selectedId={selectedId}
          onSelect={onSelect}
        />
      </div>
      <DetailPane api={api} runId={runId} live={live} detail={detail} compare={compare} onRetry={reload} />
    </div>
  );
}

function DetailPane(props: {
  api: WorkbenchApi;
  runId: string;
  live: boolean;
  detail: DetailState;
  compare: InspectRequest['compare'];
  onRetry: () => void;
}) {
  const { detail, api, runId, live } = props;
  const fork = useMemo(() => ({ api, runId, live }), [api, runId, live]);
  return (
    <div className="in-right">
      {detail.kind === 'none' && (
        <div className="in-placeholder">Select an episode to see its calls and merged samples.</div>
      )}
      {detail.kind === 'loading' && <div className="in-placeholder">Loading episode {detail.episodeId}…</div>}
      {detail.kind === 'error' && (
        <div className="in-placeholder in-error" role="alert">
          Could not load episode {detail.episodeId}: {detail.message}{' '}
          <button type="button" onClick={props.onRetry}>
            retry
          </button>
        </div>
      )}
      {detail.kind === 'ready' && <LabelBar api={props.api} runId={props.runId} episode={detail.detail.episode} />}
      {detail.kind === 'ready' && props.compare && <CompareBar compare={props.compare} />}
      {detail.kind === 'ready' && (
        <EpisodeDetailView key={detail.detail.episode.episodeId} detail={detail.detail} fork={fork} />
      )}
    </div>
  );
}
