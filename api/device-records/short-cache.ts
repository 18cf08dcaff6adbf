// A one-second cache for fleet-wide answers (map-data). A control-room map polls every few seconds, often
// from many screens of one operator account; recomputing every device for each poll costs ~10 ms of CPU per
// request on 2,000 devices (bench/results/history/api.md), so 200 polls a second would need two cores. Within the
// window one computation answers every caller with the same reach, and concurrent callers share one
// computation in flight. The key holds everything the answer depends on (user, organisation, role, zone,
// masking, filters), so nobody ever sees an answer computed for someone else. The price: a change shows up
// on the map at most `ttlMs` later.
export type ShortCache<T> = (key: string, compute: () => Promise<T>) => Promise<T>;

/** `keep`: whether a computed value is remembered (default every one); one that is not still answers the callers that waited for it. */
export function shortCache<T>({ ttlMs = 1000, maxEntries = 1000, now = Date.now, keep = () => true }: { ttlMs?: number; maxEntries?: number; now?: () => number; keep?: (value: T) => boolean } = {}): ShortCache<T> {
  const entries = new Map<string, { at: number; value: Promise<T> }>();
  return (key, compute) => {
    const t = now();
    const hit = entries.get(key);
    // Computed at or before now, within ttlMs: a clock set back makes every entry stale, not fresh for as long.
    const fresh = (at: number) => t >= at && t - at < ttlMs;
    if (hit && fresh(hit.at)) return hit.value;
    // Expired entries go as soon as another answer is computed, not when the cache is full: a map of 10,000
    // devices is 2.5 MB per caller's view (docs/decisions.md#totals-for-a-second). Entries are in the order
    // computed (a recomputed key moves to the end), so the expired ones lead.
    entries.delete(key);
    for (const [k, e] of entries) {
      if (fresh(e.at)) break;
      entries.delete(k);
    }
    // Every entry left is still fresh: past maxEntries, start again.
    if (entries.size >= maxEntries) entries.clear();
    const value = compute();
    entries.set(key, { at: t, value });
    // A failed computation is not remembered: the next caller tries again.
    const forget = () => { if (entries.get(key)?.value === value) entries.delete(key); };
    value.then((v) => { if (!keep(v)) forget(); }, forget);
    return value;
  };
}
