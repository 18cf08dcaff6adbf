// Which partitions of its topic a consumer owns, kept in step with the group: kafkajs reports the new
// assignment on every join; what is gone is revoked and what is new assigned before any batch of those
// partitions runs (handleBatch awaits `settled()`), all of it after a lapse of membership.
import type { Consumer } from 'kafkajs';
import { backoff } from '../../../../plumbing/retry.js';
import { kafkaGroupMetrics } from '../kafka-metrics.js';
import type { SubscribeOptions } from '../transport.js';
import type { KafkaLog } from './client.js';

export interface Ownership {
  settled(): Promise<void>;
  /** Out of the group (a crash): it owns nothing, so the stage drops its partitions' caches. */
  revokeAll(): void;
  /** The subscription stopped: the last revocation handed to the stage. */
  release(): Promise<void>;
}

/**
 * `startAt` (a replay): per partition, the offset a group that starts at a time seeks to when the partition
 * is first assigned. kafkajs applies pending seeks at the start of every fetch, so the join event comes early
 * enough. (admin.setOffsets would do it too, but it runs a consumer of its own and waits out one fetch: 5 s
 * per replay.)
 */
export function trackOwnership(
  consumer: Consumer, topic: string, groupId: string,
  opts: Pick<SubscribeOptions<unknown>, 'onAssign' | 'onRevoke'>, startAt: Map<number, string> | null,
): Ownership {
  const metrics = kafkaGroupMetrics(groupId, topic);
  let owned = new Set<number>();
  let memberId: string | null = null;
  let membership: Promise<void> = Promise.resolve();
  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    const assigned = new Set(event.payload.memberAssignment[topic] ?? []);
    // A member that joins under a new member id was out of the group in between (fenced after its heartbeats
    // failed, as while the coordinator's broker is down, or stalled past the session timeout): another member
    // may have processed the partitions it had, so it owns all of them anew and what it cached of them goes
    // (docs/pipeline.md#delivery-guarantees). Under the same id it was a member throughout: a kept partition
    // was nobody else's, and its cache stays (rebuilt, it would miss what a split persist has not stored yet).
    const lapsed = memberId !== event.payload.memberId;
    memberId = event.payload.memberId;
    const gone = [...owned].filter((p) => lapsed || !assigned.has(p));
    const fresh = [...assigned].filter((p) => lapsed || !owned.has(p));
    owned = assigned;
    metrics.joined(assigned.size);
    for (const partition of fresh) {
      const offset = startAt?.get(partition);
      // Kafka answers -1 for "nothing at or after that time", which is also seek's "the end".
      if (offset !== undefined) consumer.seek({ topic, partition, offset });
      startAt?.delete(partition);
    }
    membership = membership.then(async () => {
      if (gone.length) await opts.onRevoke?.(gone);
      if (fresh.length) await opts.onAssign?.(fresh);
    });
  });
  return {
    settled: () => membership,
    revokeAll() {
      const gone = [...owned];
      owned = new Set();
      metrics.left();
      membership = membership.then(async () => { if (gone.length) await opts.onRevoke?.(gone); });
    },
    async release() {
      await membership;
      if (owned.size) await opts.onRevoke?.([...owned]);
      owned = new Set();
      metrics.left();
    },
  };
}

// kafkajs restarts a crashed consumer only after errors it deems retriable; after any other (seen when a
// broker restarts mid-fetch) the consumer stays disconnected while the process runs on, consuming nothing.
// Such a consumer is joined again here, with back-off, for as long as the subscription is wanted.
export function rejoinAfterCrash(
  consumer: Consumer, where: { group: string; topic: string }, ownership: Ownership,
  join: () => Promise<void>, wanted: () => boolean, log: KafkaLog,
): void {
  consumer.on(consumer.events.CRASH, (event) => {
    const { error, restart } = event.payload;
    log(restart ? 'warn' : 'error', 'consumer crashed', { ...where, kafkajsRestarts: restart, error: error.message, errorName: error.name });
    if (restart) return;
    // Out of the group, it owns nothing: caches of its partitions go, and are rebuilt on the next assignment.
    ownership.revokeAll();
    void (async () => {
      for (let attempt = 1; wanted(); attempt++) {
        await backoff(attempt, { initialMs: 500, maxMs: 10_000 });
        if (!wanted()) return;
        try {
          await join();
          log('warn', 'consumer joined its group again after a crash', { ...where, attempt });
          return;
        } catch (err) {
          log('error', 'consumer could not join its group again; will retry', { ...where, attempt, error: (err as Error).message });
        }
      }
    })();
  });
}
