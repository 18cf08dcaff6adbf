// Replay (docs/decisions.md#replay): re-read fi.raw.v1 from a time through a second enrich consumer
// under its own consumer group, so the live groups keep their offsets. Its output joins fi.enriched.v1 and
// the running stages treat it like any other record: stored rows meet their unique keys and stay as they
// are, and notify sends nothing for records marked `source: replay`. With `reprocess`, persist rewrites the
// derived columns of the stored rows (model, Ongoing_fault, ActualOngoingFault) with the current rules.
import type pg from 'pg';
import type { ModelMap } from '../domain/model-replacement.js';
import { enrichStage } from './enrich/index.js';
import { runStage } from './runtime/runner.js';
import type { Transport } from './runtime/transport/transport.js';
import { REPLAY_SOURCE, REPROCESS_SOURCE } from './runtime/sources.js';

export interface ReplayOptions {
  transport: Transport;
  pool: pg.Pool;
  modelMap: ModelMap;
  /** ms since the epoch; 0 replays the whole retained log. */
  from: number;
  /**
   * Recompute the derived columns of stored check-ins with the rules now running (after a rule or map
   * change) instead of leaving stored rows as they are. Customers are not notified either way.
   */
  reprocess?: boolean;
  onProgress?: (done: bigint, total: bigint) => void;
  pollMs?: number;
}

/** Resolves when the replay consumer has read everything that was in fi.raw.v1 when it started. */
export async function replay({ transport, pool, modelMap, from, reprocess = false, onProgress, pollMs = 500 }: ReplayOptions): Promise<{ records: bigint }> {
  const group = `faultline.replay-${Date.now()}`;
  const enrich = enrichStage({ pool, modelMap, source: reprocess ? REPROCESS_SOURCE : REPLAY_SOURCE });
  // Count what the replay consumer handles: progress is that count against what is left.
  let read = 0n;
  const counted = { ...enrich, handle: async (batch: Parameters<typeof enrich.handle>[0]) => {
    const result = await enrich.handle(batch);
    read += BigInt(batch.messages.length);
    return result;
  } };
  const subscription = await runStage(counted, { transport, groupPrefix: group, fromTimestamp: from });
  try {
    const target = new Map((await subscription.lag()).map((p) => [p.partition, BigInt(p.end)]));
    for (;;) {
      const lag = await subscription.lag();
      const remaining = lag.reduce((sum, p) => {
        const end = target.get(p.partition) ?? 0n;
        const next = BigInt(p.next);
        return sum + (end > next ? end - next : 0n);
      }, 0n);
      onProgress?.(read, read + remaining);
      if (remaining === 0n) return { records: read };
      await new Promise((r) => setTimeout(r, pollMs));
    }
  } finally {
    await subscription.stop();
  }
}
