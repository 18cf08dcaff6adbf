// Per-device state of a stateful stage (dedup, fault-compute), for the partitions this process owns.
// Dropped whenever ownership may have changed; a device not cached is loaded from Postgres on first sight.
// A batch works on a view: its changes reach the cache only when the batch was sent (StageResult.onSent),
// because a batch that fails is delivered again and must meet the state from before it.
//
// A clear can come while a batch is under way: kafkajs joins the group again from inside one broker's fetch
// (stale metadata, as when a broker goes) while another broker's batch is being handled. Such a batch keeps the
// states it began with, and neither they nor what it loaded reach the cache after the clear: the member may
// have been fenced in between while another one moved the devices on (docs/pipeline.md#delivery-guarantees).
export interface BatchView<S> {
  get(imei: string): S;
  set(imei: string, state: S): void;
  /** Applies the batch's changes to the cache (unless the cache was cleared since the batch began). */
  commit(): void;
}

export interface DeviceCache<S> {
  clear(): void;
  begin(imeis: Iterable<string>): Promise<BatchView<S>>;
}

export function deviceCache<S>(load: (imeis: string[]) => Promise<Map<string, S>>): DeviceCache<S> {
  const cache = new Map<string, S>();
  /** Counts the clears: a view begun in an earlier generation leaves the cache alone. */
  let generation = 0;
  return {
    clear: () => { cache.clear(); generation++; },
    async begin(imeis) {
      const began = generation;
      const wanted = [...new Set(imeis)];
      const base = new Map<string, S>(wanted.flatMap((imei) => (cache.has(imei) ? [[imei, cache.get(imei)!] as const] : [])));
      const loaded = await load(wanted.filter((imei) => !base.has(imei)));
      const current = () => generation === began;
      for (const [imei, state] of loaded) {
        base.set(imei, state);
        if (current()) cache.set(imei, state);
      }
      const working = new Map<string, S>();
      return {
        get(imei) {
          const state = working.get(imei) ?? base.get(imei);
          if (state === undefined) throw new Error(`no state loaded for ${imei}`);
          return state;
        },
        set: (imei, state) => { working.set(imei, state); },
        commit: () => { if (current()) for (const [imei, state] of working) cache.set(imei, state); },
      };
    },
  };
}
