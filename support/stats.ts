// The figures every bench reports: median with min and max over runs, and nearest-rank percentiles.
// Pure and dependency-free, so the load generator (open-loop.ts) can use it without loading the rest.
export interface Stats { median: number; min: number; max: number }

export const stats = (xs: number[]): Stats => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s[s.length - 1]! };
};

/** Nearest-rank percentile `p` (0..100) of ascending `sorted`; NaN when empty. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
