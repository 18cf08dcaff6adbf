// Per-device state of a stateful stage (dedup, fault-compute), for the partitions this process owns.
// Dropped whenever ownership may have changed; a device not cached is loaded from Postgres on first sight.
// A batch works on a view: its changes reach the cache only when the batch was sent (StageResult.onSent),
// because a batch that fails is delivered again and must meet the state from before it.
export interface BatchView<S> {
  get(imei: string): S;
  set(imei: string, state: S): void;
  /** Applies the batch's changes to the cache. */
  commit(): void;
}

export interface DeviceCache<S> {
  clear(): void;
  begin(imeis: Iterable<string>): Promise<BatchView<S>>;
}

export function deviceCache<S>(load: (imeis: string[]) => Promise<Map<string, S>>): DeviceCache<S> {
  const cache = new Map<string, S>();
  return {
    clear: () => cache.clear(),
    async begin(imeis) {
      const missing = [...new Set(imeis)].filter((imei) => !cache.has(imei));
      for (const [imei, state] of await load(missing)) cache.set(imei, state);
      const working = new Map<string, S>();
      return {
        get(imei) {
          const state = working.get(imei) ?? cache.get(imei);
          if (state === undefined) throw new Error(`no state loaded for ${imei}`);
          return state;
        },
        set: (imei, state) => { working.set(imei, state); },
        commit: () => { for (const [imei, state] of working) cache.set(imei, state); },
      };
    },
  };
}
