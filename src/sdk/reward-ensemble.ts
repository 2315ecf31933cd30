// A reward-model ensemble for reward code: the members a pointer names (each checked against its hash, as
// RewardModel.fromPointer does), scored together; the score is mean − k·std of the members' standardized
// scores (ensembleScore), an uncertainty penalty against over-optimising one model's errors.
//
//   const ens = await RewardEnsemble.fromPointer(rewardModelPointer);   // null: nothing deployed
//   const { score, std } = await ens.scoreEpisode(history, tools);
//
// A pointer without `ensemble` is an ensemble of one (std 0: the standardized score of that model).
import {
  ensembleScore,
  RewardModelPointerSchema,
  type EnsembleScore,
  type RewardModelRef,
} from '../shared/reward-model';
import type { ChatMessage, Tool } from '../shared/chat';
import { RewardModel, type RewardModelOptions } from './reward-model';

export class RewardEnsemble {
  private constructor(
    readonly members: readonly RewardModel[],
    /** k in mean − k·std. */
    readonly stdPenalty: number,
  ) {}

  /** The ensemble (or single model) a pointer module names; null when none is deployed. */
  static async fromPointer(
    pointer: unknown,
    o: Omit<RewardModelOptions, 'sha256'> = {},
  ): Promise<RewardEnsemble | null> {
    const parsed = RewardModelPointerSchema.safeParse(pointer);
    if (!parsed.success)
      throw new Error(
        'not a reward-model pointer ({"rewardModel": {"folder", "sha256"} | null, "ensemble"?: {...}}): ' +
          `${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    const refs: RewardModelRef[] =
      parsed.data.ensemble?.members ?? (parsed.data.rewardModel ? [parsed.data.rewardModel] : []);
    if (refs.length === 0) return null;
    const members: RewardModel[] = [];
    try {
      for (const r of refs) members.push(await RewardModel.load(r.folder, { ...o, sha256: r.sha256 }));
    } catch (err) {
      await Promise.all(members.map((m) => m.dispose()));
      throw err;
    }
    return new RewardEnsemble(members, parsed.data.ensemble?.stdPenalty ?? 0);
  }

  /** The members' versions, e.g. "v3+v4+v5". */
  get versions(): string {
    return this.members.map((m) => `v${m.version}`).join('+');
  }

  /** An episode's penalized score (its messages through the last assistant turn), every member at once. */
  async scoreEpisode(messages: readonly ChatMessage[], tools?: readonly Tool[] | null): Promise<EnsembleScore> {
    const raw = await Promise.all(this.members.map((m) => m.scoreEpisode(messages, tools)));
    return ensembleScore(
      raw,
      this.members.map((m) => m.manifest.scoreStats),
      this.stdPenalty,
    );
  }

  async dispose(): Promise<void> {
    await Promise.all(this.members.map((m) => m.dispose()));
  }
}
