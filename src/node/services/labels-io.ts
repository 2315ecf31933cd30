// Labels as JSONL, one label per line — what `importLabels` reads and `exportLabels` writes:
//   {"episodeId": "e1", "label": "good" | "bad", "author"?, "createdAt"?, "source"?}
//   {"episodeId": "e1", "otherEpisodeId": "e2", "label": "prefer", …}     (e1 preferred over e2)
// Exported lines also carry taskId, codeVersion(s), and — when asked — each episode's conversation;
// import ignores fields it does not use. Parsing is all or nothing; errors name the line.
import { z } from 'zod';
import type { Conversation } from '../../shared/reward-model';
import type { Label, NewLabel } from '../../shared/rewards-api';
import { WorkbenchError } from '../../shared/workbench-api';

/** Text stored as given: no NUL characters (they truncate text in C tools and hide the rest from a reader). */
const Text = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine((s) => !s.includes('\u0000'), 'contains a NUL character');
/** Milliseconds since 1970 (what `Date.now()` gives), between 2000-01-01 and 2200-01-01. */
export const LABEL_TIME_RANGE = [Date.UTC(2000, 0, 1), Date.UTC(2200, 0, 1)] as const;
const Time = z
  .number()
  .refine(
    (t) => t >= LABEL_TIME_RANGE[0] && t <= LABEL_TIME_RANGE[1],
    'milliseconds since 1970 between 2000-01-01 and 2200-01-01',
  );
const Id = Text(1, 300);
const Common = {
  author: Text(1, 200).optional(),
  createdAt: Time.optional(),
  source: Text(1, 100).optional(),
};
const PointLine = z.looseObject({ label: z.enum(['good', 'bad']), episodeId: Id, ...Common });
const PairLine = z.looseObject({ label: z.literal('prefer'), episodeId: Id, otherEpisodeId: Id, ...Common });

export interface ImportedLabel {
  line: number;
  label: NewLabel;
  author?: string | undefined;
  createdAt?: number | undefined;
  source?: string | undefined;
}

export const MAX_IMPORT_LINES = 200_000;

export function parseLabelsJsonl(text: string): ImportedLabel[] {
  const out: ImportedLabel[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    if (out.length >= MAX_IMPORT_LINES)
      throw new WorkbenchError('invalid_input', `line ${i + 1}: more than ${MAX_IMPORT_LINES} labels in one import`);
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      throw new WorkbenchError(
        'invalid_input',
        `line ${i + 1}: invalid JSON (${err instanceof Error ? err.message : String(err)})`,
      );
    }
    const kind = typeof raw === 'object' && raw !== null && 'label' in raw ? raw.label : undefined;
    const schema = kind === 'prefer' ? PairLine : PointLine;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const known = kind === 'good' || kind === 'bad' || kind === 'prefer';
      const why = !known
        ? 'label: "good", "bad" or "prefer"'
        : parsed.error.issues.map((x) => `${x.path.join('.') || '(line)'}: ${x.message}`).join('; ');
      throw new WorkbenchError('invalid_input', `line ${i + 1}: ${why}`);
    }
    const d = parsed.data;
    const label: NewLabel =
      'otherEpisodeId' in d && d.label === 'prefer'
        ? { kind: 'prefer', episodeId: d.episodeId, otherEpisodeId: String(d.otherEpisodeId) }
        : { kind: d.label === 'good' ? 'good' : 'bad', episodeId: d.episodeId };
    out.push({ line: i + 1, label, author: d.author, createdAt: d.createdAt, source: d.source });
  }
  return out;
}

/** One exported line. */
export function labelLine(l: Label, conversations?: { one: Conversation | null; other: Conversation | null }): string {
  const base = {
    episodeId: l.episodeId,
    label: l.kind,
    ...(l.otherEpisodeId !== null ? { otherEpisodeId: l.otherEpisodeId } : {}),
    taskId: l.taskId,
    codeVersion: l.codeVersion,
    ...(l.otherEpisodeId !== null ? { otherCodeVersion: l.otherCodeVersion } : {}),
    author: l.author,
    source: l.source,
    createdAt: l.createdAt,
  };
  if (!conversations) return JSON.stringify(base);
  return JSON.stringify({
    ...base,
    conversation: conversations.one,
    ...(l.otherEpisodeId !== null ? { otherConversation: conversations.other } : {}),
  });
}
