// A chart of check-ins must not draw a line across a silence: a gap longer than twice the device's usual
// check-in interval (the median of its intervals) gets a null point, where uPlot breaks the line.

export interface TimedValue { t: number; v: number | null }

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** `points` sorted by t, with a null point in the middle of every gap longer than twice the median interval. */
export function breakAtGaps(points: readonly TimedValue[]): TimedValue[] {
  if (points.length < 3) return [...points];
  const intervals = points.slice(1).map((p, i) => p.t - points[i]!.t).filter((d) => d > 0);
  if (intervals.length === 0) return [...points];
  const limit = 2 * median(intervals);
  const out: TimedValue[] = [points[0]!];
  for (let i = 1; i < points.length; i++) {
    const prev = points[i - 1]!;
    const p = points[i]!;
    if (p.t - prev.t > limit) out.push({ t: (prev.t + p.t) / 2, v: null });
    out.push(p);
  }
  return out;
}
