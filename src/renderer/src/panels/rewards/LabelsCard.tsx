// The run's labels: counts by kind and author, import from a JSONL file (all or nothing), export as
// JSONL (optionally with each episode's conversation).
import { useEffect, useState, type ChangeEvent } from 'react';
import type { LabelSummary } from '../../../../shared/rewards-api';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { errorMessage } from '../../store/toasts';

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function LabelsCard({
  api,
  runId,
  refreshKey,
  onChanged,
}: {
  api: WorkbenchApi;
  runId: string;
  refreshKey: string;
  onChanged: () => void;
}) {
  const [withConvs, setWithConvs] = useState(false);
  const { summary, note, setNote } = useLabelSummary(api, runId, refreshKey);

  const onFile = (e: ChangeEvent<HTMLInputElement>): void => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    void file
      .text()
      .then((jsonl) => api.importLabels({ runId, jsonl }))
      .then(
        (r) => {
          setNote(`imported ${r.imported} labels from ${file.name} (${r.replaced} replaced earlier ones)`);
          onChanged();
        },
        (err: unknown) => setNote(`import failed: ${errorMessage(err)}`),
      );
  };

  const onExport = (): void => {
    api.exportLabels({ runId, conversations: withConvs }).then(
      (r) => {
        download(`labels-${runId}.jsonl`, r.jsonl);
        setNote(`exported ${r.labels} labels`);
      },
      (err: unknown) => setNote(`export failed: ${errorMessage(err)}`),
    );
  };

  return (
    <div className="card rw-labels" data-testid="labels-card">
      <div className="rw-head">
        <span className="chart-title">Labels</span>
      </div>
      {summary ? <LabelCounts summary={summary} /> : null}
      <div className="rw-row">
        <label className="rw-file">
          import JSONL{' '}
          <input type="file" accept=".jsonl,.json,.ndjson,text/plain" onChange={onFile} data-testid="labels-import" />
        </label>
        <button type="button" onClick={onExport} data-testid="labels-export">
          export JSONL
        </button>
        <label className="muted">
          <input type="checkbox" checked={withConvs} onChange={(e) => setWithConvs(e.target.checked)} /> with
          conversations
        </label>
      </div>
      {note && (
        <div className="muted" role="status">
          {note}
        </div>
      )}
    </div>
  );
}

/** The run's label summary, reloaded on each refresh; `note` says what went wrong or what was done. */
function useLabelSummary(api: WorkbenchApi, runId: string, refreshKey: string) {
  const [summary, setSummary] = useState<LabelSummary | null>(null);
  const [note, setNote] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api.labels({ runId }).then(
      (r) => {
        if (!live) return;
        setSummary(r.summary);
        setNote(null);
      },
      (err: unknown) => live && setNote(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [api, runId, refreshKey]);
  return { summary, note, setNote };
}

function LabelCounts({ summary }: { summary: LabelSummary }) {
  return (
    <div
      className="rw-counts"
      data-testid="label-counts"
      data-good={summary.good}
      data-bad={summary.bad}
      data-pairs={summary.pairs}
    >
      <span>
        <b className="mono">{summary.good}</b> good
      </span>
      <span>
        <b className="mono">{summary.bad}</b> bad
      </span>
      <span>
        <b className="mono">{summary.pairs}</b> preferences
      </span>
      <span>
        <b className="mono">{summary.labelledEpisodes}</b> episodes
      </span>
      <span className="muted">
        {summary.authors.length
          ? `by ${summary.authors.join(', ')}`
          : 'no labels yet: label in the inspector or the queue'}
      </span>
    </div>
  );
}
