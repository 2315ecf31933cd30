// The inspector's state: the filter form (applied after a short debounce) and the selected
// episode's detail, reloaded when that episode changes on the worker or an update trains it.
import { useEffect, useMemo, useState } from 'react';
import type { EpisodeDetail, EpisodeRow, WorkbenchApi } from '../../../../shared/workbench-api';
import { EMPTY_FILTER_FORM, episodeTick, filterFromForm, type FilterForm } from './episode-query';

const FILTER_DEBOUNCE_MS = 250;
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export type DetailState =
  | { kind: 'none' }
  | { kind: 'loading'; episodeId: string }
  | { kind: 'ready'; detail: EpisodeDetail }
  | { kind: 'error'; episodeId: string; message: string };

/** The filter form as typed, and the API filter (with its errors) of the form last applied. */
export function useEpisodeFilter() {
  const [form, setForm] = useState<FilterForm>(EMPTY_FILTER_FORM);
  const [applied, setApplied] = useState<FilterForm>(EMPTY_FILTER_FORM);
  useEffect(() => {
    const t = setTimeout(() => setApplied(form), FILTER_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [form]);
  const { filter, errors } = useMemo(() => filterFromForm(applied), [applied]);
  return { form, setForm, filter, errors };
}

/** The selected episode and its detail, reloaded when `lastEpisode` is the selected one and changed. */
export function useEpisodeDetail(api: WorkbenchApi, runId: string | null, lastEpisode: EpisodeRow | null) {
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [detail, setDetail] = useState<DetailState>({ kind: 'none' });
  const [detailTick, setDetailTick] = useState(0);
  const reload = (): void => setDetailTick((t) => t + 1);

  // Another run: start without a selection.
  useEffect(() => {
    setSelectedId(null);
    setDetail({ kind: 'none' });
  }, [runId]);

  // The selected episode changed on the worker (ended, timelines stored): reload its detail.
  const selectedUpdated =
    lastEpisode !== null && lastEpisode.episodeId === selectedId ? episodeTick(lastEpisode) : null;
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
  return { selectedId, setSelectedId, detail, reload };
}
