// The Campaigns panel's state: the campaign list and the selected campaign's detail, polled while
// the panel is shown and online; commands reload the detail and report failures.
import { useCallback, useEffect, useState } from 'react';
import type { CampaignDetail, CampaignSummary } from '../../../../shared/campaign/api';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { errorMessage } from '../../store/toasts';

function usePoll(enabled: boolean, ms: number, fn: () => Promise<void>): void {
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    let timer = 0;
    const tick = async (): Promise<void> => {
      await fn().catch(() => undefined);
      if (live) timer = window.setTimeout(() => void tick(), ms);
    };
    void tick();
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [enabled, ms, fn]);
}

export function useCampaigns(api: WorkbenchApi, polling: boolean, reportError: (message: string) => void) {
  const [list, setList] = useState<CampaignSummary[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [detail, setDetail] = useState<CampaignDetail | null>(null);

  const loadList = useCallback(async () => {
    const r = await api.campaigns({});
    setList(r.campaigns);
    setSelected((s) => s ?? r.campaigns[0]?.campaignId ?? null);
  }, [api]);
  const loadDetail = useCallback(async () => {
    if (selected) setDetail(await api.campaign({ campaignId: selected }));
  }, [api, selected]);
  usePoll(polling, 4000, loadList);
  usePoll(polling && selected !== null, 2000, loadDetail);

  /** Runs a command, then reloads the detail; a failure goes to `reportError`. */
  const act = (p: Promise<unknown>): void =>
    void p.then(
      () => loadDetail(),
      (err: unknown) => reportError(errorMessage(err)),
    );
  return { list, selected, setSelected, detail, loadList, act };
}

/** The campaign-file field and starting (or resuming) the campaign it names. */
export function useCampaignStart(api: WorkbenchApi, onStarted: (campaignId: string) => void) {
  const [file, setFile] = useState('');
  const [error, setError] = useState<string | null>(null);
  const start = (): void => {
    setError(null);
    api.campaignStart({ file: file.trim() }).then(
      (r) => onStarted(r.campaignId),
      (err: unknown) => setError(errorMessage(err)),
    );
  };
  return { file, setFile, error, start };
}
