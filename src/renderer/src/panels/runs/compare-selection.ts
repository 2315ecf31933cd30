// Which runs are ticked for comparison: at most two; ticking a third drops the oldest pick. Pure.

export function toggleCompare(selected: readonly string[], runId: string, max = 2): string[] {
  if (selected.includes(runId)) return selected.filter((r) => r !== runId);
  return [...selected, runId].slice(-max);
}
