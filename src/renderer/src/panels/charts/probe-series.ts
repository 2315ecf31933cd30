// Saved fork probes as chart rows (pure): one row per weight version, one column per probe with its
// hit rate there (hits / K; the latest point when a version was probed twice).
export interface ProbeSeriesInput {
  id: number;
  name: string;
  points: readonly { weightVersion: number; at: number; k: number; hits: number }[];
}

export function probeRows(probes: readonly ProbeSeriesInput[]): Record<string, number>[] {
  const byVersion = new Map<number, Record<string, number>>();
  for (const p of probes)
    for (const pt of [...p.points].sort((a, b) => a.at - b.at)) {
      const row = byVersion.get(pt.weightVersion) ?? { weightVersion: pt.weightVersion };
      if (pt.k > 0) row[`p${p.id}`] = pt.hits / pt.k;
      byVersion.set(pt.weightVersion, row);
    }
  return [...byVersion.values()].sort((a, b) => a['weightVersion']! - b['weightVersion']!);
}
