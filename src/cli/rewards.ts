// `agentjet labels …` and `agentjet reward-model …`: the workbench's learned-reward services on its
// runs database, from a terminal — import/export/list labels of a run, train a reward model on them (the
// same engine process and versioned folder as the Rewards panel) and list a run's reward models.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { LabelsService } from '../node/services/labels-service';
import { RewardModelService } from '../node/services/reward-model-service';
import { openStore } from '../node/store/store';
import { workbenchMethods, type WorkbenchEvent } from '../shared/workbench-api';
import { parseFlags } from './flags';
import { resolveDataDir } from './ui';

export const rewardsHelp = `  agentjet labels import --run R --file F [--data-dir D] [--author A]
                           add the labels of a JSONL file to a run (all or nothing)
  agentjet labels export --run R [--file F] [--conversations true] [--data-dir D]
                           a run's labels as JSONL (stdout without --file)
  agentjet labels list --run R [--data-dir D]
                           counts by kind, then the authors one per line
  agentjet reward-model train --run R [--loss pairwise|pointwise|both] [--epochs E] [--lr LR]
                           [--heldout F] [--max-minutes M] [--max-length L] [--data-dir D]
                           train a reward model on the run's labels (a new version in its run folder)
  agentjet reward-model list --run R [--data-dir D]`;

const Common = z.object({ run: z.string().min(1), dataDir: z.string().min(1).optional() });
const Bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const TrainParams = workbenchMethods.trainRewardModel.params;

function withStore<T>(
  dataDir: string | undefined,
  fn: (o: { store: ReturnType<typeof openStore>; dir: string }) => Promise<T>,
): Promise<T> {
  const dir = resolveDataDir(dataDir);
  const store = openStore(join(dir, 'workbench.sqlite'));
  return fn({ store, dir }).finally(() => store.close());
}

/** A stored name on one terminal line: quoted (JSON) when it holds control characters or edge spaces. */
const printable = (s: string): string =>
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f]|^\s|\s$/.test(s) ? JSON.stringify(s) : s;

function parse<T>(schema: z.ZodType<T>, flags: string[]): T {
  const parsed = schema.safeParse(parseFlags(flags));
  if (!parsed.success) throw new Error(`${z.prettifyError(parsed.error)}\n\n${rewardsHelp}`);
  return parsed.data;
}

export async function runLabels(
  sub: string | undefined,
  flags: string[],
  out: (line: string) => void = console.log,
): Promise<void> {
  if (sub === 'import') {
    const o = parse(Common.extend({ file: z.string().min(1), author: z.string().min(1).optional() }).strict(), flags);
    const jsonl = await readFile(o.file, 'utf8');
    await withStore(o.dataDir, async ({ store }) => {
      const r = await new LabelsService({ store, ...(o.author ? { author: o.author } : {}) }).importLabels({
        runId: o.run,
        jsonl,
      });
      out(`imported ${r.imported} labels into ${o.run} (${r.replaced} replaced earlier ones)`);
    });
  } else if (sub === 'export') {
    const o = parse(
      Common.extend({ file: z.string().min(1).optional(), conversations: Bool.default(false) }).strict(),
      flags,
    );
    await withStore(o.dataDir, async ({ store }) => {
      const r = await new LabelsService({ store }).exportLabels({ runId: o.run, conversations: o.conversations });
      if (o.file) {
        await writeFile(o.file, r.jsonl);
        out(`wrote ${r.labels} labels to ${o.file}`);
      } else process.stdout.write(r.jsonl);
    });
  } else if (sub === 'list') {
    const o = parse(Common.strict(), flags);
    await withStore(o.dataDir, async ({ store }) => {
      const s = store.labelSummary(o.run);
      out(`${o.run}: ${s.good} good, ${s.bad} bad, ${s.pairs} preferences on ${s.labelledEpisodes} episodes`);
      if (s.authors.length > 0) out(`authors (${s.authors.length}):`);
      for (const a of s.authors) out(`  ${printable(a)}`);
    });
  } else throw new Error(`agentjet labels: import, export or list\n\n${rewardsHelp}`);
}

export async function runRewardModel(
  sub: string | undefined,
  flags: string[],
  out: (line: string) => void = console.log,
): Promise<void> {
  if (sub === 'train') {
    const o = parse(
      Common.extend({
        loss: z.string().optional(),
        epochs: z.string().optional(),
        lr: z.string().optional(),
        heldout: z.string().optional(),
        maxMinutes: z.string().optional(),
        maxLength: z.string().optional(),
      }).strict(),
      flags,
    );
    const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
    const params = TrainParams.safeParse({
      runId: o.run,
      loss: o.loss,
      epochs: num(o.epochs),
      lr: num(o.lr),
      heldout: num(o.heldout),
      maxMinutes: num(o.maxMinutes),
      maxLength: num(o.maxLength),
    });
    if (!params.success) throw new Error(`${z.prettifyError(params.error)}\n\n${rewardsHelp}`);
    await withStore(o.dataDir, async ({ store, dir }) => {
      let finish: (e: Extract<WorkbenchEvent, { type: 'reward_model' }>) => void = () => undefined;
      const finished = new Promise<Extract<WorkbenchEvent, { type: 'reward_model' }>>((r) => (finish = r));
      const service = new RewardModelService({
        store,
        dataDir: dir,
        log: () => undefined,
        live: () => null,
        emit: (e) => {
          if (e.type !== 'reward_model') return;
          out(
            `v${e.status.version} ` +
              `${e.status.state}${e.status.fraction !== null ? ` ${Math.round(100 * e.status.fraction)}%` : ''}: ` +
              `${e.status.detail}`,
          );
          if (e.status.state !== 'training') finish(e);
        },
      });
      await service.trainRewardModel(params.data);
      const done = await finished;
      if (done.status.state === 'failed')
        throw new Error(`reward model v${done.status.version} failed: ${done.status.detail}`);
      if (done.model)
        out(`reward model v${done.model.version}: ${done.model.folder} (sha256 ${done.model.sha256.slice(0, 12)}…)`);
    });
  } else if (sub === 'list') {
    const o = parse(Common.strict(), flags);
    await withStore(o.dataDir, async ({ store }) => {
      const models = store.listRewardModels(o.run);
      if (models.length === 0) out(`${o.run} has no reward model`);
      for (const m of models) {
        const acc = m.heldoutAccuracy === null ? 'n/a' : `${(100 * m.heldoutAccuracy).toFixed(1)}%`;
        out(
          `v${m.version}  ${m.loss}  held-out ${acc} (${m.heldoutLabels})  |ONNX−PyTorch| ` +
            `${m.onnxMaxAbsDiff.toExponential(1)}  ${m.deployedAt ? 'deployed' : ''}  ${m.folder}`,
        );
      }
    });
  } else throw new Error(`agentjet reward-model: train or list\n\n${rewardsHelp}`);
}
