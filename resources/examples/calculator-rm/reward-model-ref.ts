// The reward model this client scores with: a reward-model folder and its manifest's SHA-256, or null.
// "Deploy" in the workbench's Rewards panel rewrites this file and hot-swaps the clients, so the
// client's code version names the model it used. It may be edited by hand (RewardModel.fromPointer checks it).
export const rewardModelPointer: unknown = {
  "rewardModel": null
};
