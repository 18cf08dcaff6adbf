// How far back a replay reaches (docs/replay.md#how-far-back-it-reaches): fi.raw.v1's retention, and the append time of the earliest
// record it still holds. Kafka has no call that answers the second without reading the record, so the first
// record of each partition is read under a consumer group of its own, deleted again at once (a join: a
// second or so).
import { randomUUID } from 'node:crypto';
import { TOPICS } from '../schemas/avro/topics.js';
import type { Transport } from './runtime/transport/transport.js';

export interface ReplayReach {
  /** Append time (ms) of the earliest record fi.raw.v1 holds; null: the topic is empty. */
  earliest: number | null;
  /** The topic's retention.ms as the broker applies it; null: unknown (in-process transport) or kept forever. */
  retentionMs: number | null;
}

export async function replayReach(transport: Transport, { groupPrefix = 'faultline', timeoutMs = 60_000 } = {}): Promise<ReplayReach> {
  const retentionMs = (await transport.retentionMs?.(TOPICS.raw)) ?? null;
  const waiting = new Set((await transport.topicRange(TOPICS.raw, 0)).filter((r) => BigInt(r.start) < BigInt(r.end)).map((r) => r.partition));
  if (waiting.size === 0) return { earliest: null, retentionMs };
  let earliest = Infinity;
  let done!: () => void;
  const all = new Promise<void>((resolve) => { done = resolve; });
  const group = `reach-${randomUUID().slice(0, 8)}`;
  const seen = (partition: number, timestamp: number) => {
    if (!waiting.has(partition)) return;
    earliest = Math.min(earliest, timestamp);
    waiting.delete(partition);
    if (waiting.size === 0) done();
  };
  const subscription = await transport.subscribe<unknown>({
    groupId: `${groupPrefix}.${group}`, topic: TOPICS.raw, fromTimestamp: 0,
    async eachBatch({ partition, messages }) { if (messages[0]) seen(partition, messages[0].timestamp); },
    // A record that does not decode is still the earliest of its partition.
    async onPoison(message) { seen(message.partition, message.timestamp); },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([all, new Promise<void>((_, reject) => { timer = setTimeout(() => reject(new Error(`could not read the earliest record of ${TOPICS.raw} within ${timeoutMs / 1000} s`)), timeoutMs); })]);
  } finally {
    clearTimeout(timer);
    await subscription.stop();
    await transport.deleteGroup(`${groupPrefix}.${group}`);
  }
  return { earliest, retentionMs };
}
