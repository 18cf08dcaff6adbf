// Replay (DESIGN "Replay is a feature"): re-read fi.raw.v1 from a time through a second enrich consumer
// under its own consumer group, so the live groups keep their offsets. Its output joins fi.enriched.v1 and
// the running stages treat it like any other record: stored rows meet their unique keys and stay as they
// are, and notify sends nothing for records marked `source: replay`.
import type pg from 'pg';
import type { ModelMap } from '../domain/model-replacement.js';
import { enrichStage } from './enrich/index.js';
import { runStage } from './runtime/runner.js';
import type { Transport } from './runtime/transport/transport.js';

export interface ReplayOptions {
  transport: Transport;
  pool: pg.Pool;
  modelMap: ModelMap;
  /** ms since the epoch; 0 replays the whole retained log. */
  from: number;
  onProgress?: (done: bigint, total: bigint) => void;
  pollMs?: number;
}

/** Resolves when the replay consumer has read everything that was in fi.raw.v1 when it started. */
export async function replay({ transport, pool, modelMap, from, onProgress, pollMs = 500 }: ReplayOptions): Promise<{ records: bigint }> {
  const group = `faultline.replay-${Date.now()}`;
  const stage = enrichStage({ pool, modelMap, source: 'replay' });
  const subscription = await runStage(stage, { transport, groupPrefix: group, fromTimestamp: from });
  try {
    const target = new Map((await subscription.lag()).map((p) => [p.partition, BigInt(p.end)]));
    let first: bigint | null = null;
    for (;;) {
      const lag = await subscription.lag();
      const remaining = lag.reduce((sum, p) => {
        const end = target.get(p.partition) ?? 0n;
        const next = BigInt(p.next);
        return sum + (end > next ? end - next : 0n);
      }, 0n);
      first ??= remaining;
      onProgress?.(first - remaining, first);
      if (remaining === 0n) return { records: first };
      await new Promise((r) => setTimeout(r, pollMs));
    }
  } finally {
    await subscription.stop();
  }
}
