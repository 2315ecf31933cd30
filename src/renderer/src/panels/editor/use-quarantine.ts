// Quarantine by code version from the versions pane (docs/inner-loop.md): what the live worker
// holds per version and what the store marked, reloaded after each quarantine or release and when
// the version list changes; Quarantine / Release call the workbench (which asks the worker).
import { useCallback, useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/workbench-api';

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export interface VersionQuarantine {
  /** Episodes the worker holds out of the pool now (live run only). */
  held: number;
  /** Episodes ever marked quarantined in the store, and of those the ones released. */
  marked: number;
  released: number;
}

/** Per code version: the worker's held episodes and the store's marks. */
export function quarantineCounts(r: {
  marks: { codeVersion: string; releasedAt: number | null }[];
  held: { codeVersion: string; episodeIds: string[] }[] | null;
}): Map<string, VersionQuarantine> {
  const out = new Map<string, VersionQuarantine>();
  const at = (v: string): VersionQuarantine => {
    const q = out.get(v) ?? { held: 0, marked: 0, released: 0 };
    out.set(v, q);
    return q;
  };
  for (const m of r.marks) {
    const q = at(m.codeVersion);
    q.marked++;
    if (m.releasedAt !== null) q.released++;
  }
  for (const h of r.held ?? []) at(h.codeVersion).held += h.episodeIds.length;
  return out;
}

export function useQuarantine(api: WorkbenchApi, runId: string | null, reloadKey: unknown) {
  const [counts, setCounts] = useState<Map<string, VersionQuarantine>>(new Map());
  const [busy, setBusy] = useState<string | null>(null);
  const [note, setNote] = useState<{ text: string; error: boolean } | null>(null);
  const reload = useCallback(() => {
    if (!runId) return;
    api.quarantineList({ runId }).then(
      (r) => setCounts(quarantineCounts(r)),
      (err: unknown) => setNote({ text: `quarantine list: ${message(err)}`, error: true }),
    );
  }, [api, runId]);
  useEffect(() => reload(), [reload, reloadKey]);
  const act = async (codeVersion: string, release: boolean): Promise<void> => {
    setBusy(codeVersion);
    try {
      const r = release ? await api.releaseQuarantine({ codeVersion }) : await api.quarantine({ codeVersion });
      const n = r.episodeIds.length;
      const moved = `${n} episode${n === 1 ? '' : 's'} ${release ? 'back in' : 'out of'} the pool`;
      setNote({ text: `${moved} (${r.poolEpisodes} pooled)`, error: false });
    } catch (err) {
      setNote({ text: message(err), error: true });
    } finally {
      setBusy(null);
      reload();
    }
  };
  return {
    counts,
    busy,
    note,
    quarantine: (v: string) => void act(v, false),
    release: (v: string) => void act(v, true),
  };
}
