// One batch of one partition, as kafkajs hands it over: decode (retrying while the registry is away), run the
// stage's handler until it succeeds, then move the group's committed offset past the batch.
import type { Consumer, EachBatchPayload } from 'kafkajs';
import { backoff } from '../../../../plumbing/retry.js';
import { isRetriable } from '../../../../errors/base.js';
import type { InMessage, SubscribeOptions } from '../transport.js';
import type { KafkaClient } from './client.js';

export interface BatchContext<V> {
  client: KafkaClient;
  consumer: Consumer;
  opts: SubscribeOptions<V>;
  /** False once the subscription is stopping. */
  wanted(): boolean;
  /** Resolves when every assignment and revocation so far reached the stage (membership.ts). */
  settled(): Promise<void>;
}

// kafkajs heartbeats only between batches or when asked. A batch that takes longer than the session
// timeout (a handler waiting on a locked table, a decode waiting on a frozen registry) got the member
// thrown out of its group, and the stage stopped for good (found by test/resilience/backpressure).
// So the membership is kept alive for as long as a batch is being handled.
export async function withHeartbeat(payload: EachBatchPayload, sessionTimeoutMs: number, handle: () => Promise<void>): Promise<void> {
  const keepAlive = setInterval(() => { payload.heartbeat().catch(() => {}); }, Math.max(500, Math.floor(sessionTimeoutMs / 5)));
  try {
    await handle();
  } finally {
    clearInterval(keepAlive);
  }
}

export async function handleBatch<V>(ctx: BatchContext<V>, payload: EachBatchPayload): Promise<void> {
  const { batch, isRunning, isStale, resolveOffset } = payload;
  await ctx.settled();
  const messages = await decodeBatch(ctx, payload);
  if (messages === null) return;
  const last = batch.messages[batch.messages.length - 1];
  if (!last) return;
  if (!(await runHandler(ctx, payload, messages))) return;
  if (!isRunning() || isStale()) return;
  // resolveOffset moves kafkajs's own fetch position; commitOffsets makes it durable for the group.
  resolveOffset(last.offset);
  await ctx.consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() }]);
}

/** The batch's records decoded, poison handed to onPoison; null when the batch was given up (stopping, or the partition moved). */
async function decodeBatch<V>(ctx: BatchContext<V>, { batch, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<InMessage<V>[] | null> {
  const { opts, client } = ctx;
  const messages: InMessage<V>[] = [];
  for (const m of batch.messages) {
    const raw: InMessage<Buffer> = {
      topic: opts.topic, partition: batch.partition, offset: m.offset, key: m.key?.toString('utf8') ?? '',
      value: m.value ?? Buffer.alloc(0), timestamp: Number(m.timestamp),
    };
    // A decode that failed because the registry is away (its error's `retriable`, errors/base.ts; e.g. a schema id not cached yet
    // while the registry is down) is tried again; only bytes that can never decode are poison. Dead-
    // lettering on a transient error would drop good records during a registry outage.
    for (let attempt = 1; ; attempt++) {
      try {
        messages.push({ ...raw, value: await client.codec.decode<V>(opts.topic, raw.value) });
        break;
      } catch (err) {
        if (isRetriable(err)) {
          if (!isRunning() || isStale()) return null;
          client.log('warn', 'decode failed (registry unavailable?); will retry', { topic: batch.topic, partition: batch.partition, attempt, error: (err as Error).message });
          await backoff(attempt, { initialMs: 200, maxMs: 10_000 });
          await heartbeat().catch(() => {});
          continue;
        }
        if (!opts.onPoison) throw err;
        await opts.onPoison(raw, err as Error);
        break;
      }
    }
  }
  return messages;
}

// The handler is retried here rather than by kafkajs, so a failing batch is never skipped and the
// group membership stays alive (heartbeat) while the database or broker is away.
/** True once the handler succeeded; false when the batch was given up. */
async function runHandler<V>(ctx: BatchContext<V>, { batch, heartbeat, isRunning, isStale }: EachBatchPayload, messages: InMessage<V>[]): Promise<boolean> {
  const { opts } = ctx;
  for (let attempt = 1; ; attempt++) {
    if (!isRunning() || isStale()) return false;
    try {
      if (messages.length) await opts.eachBatch({ topic: opts.topic, partition: batch.partition, messages }, { isRunning: () => isRunning() && ctx.wanted(), heartbeat });
      return true;
    } catch (err) {
      ctx.client.log('warn', 'batch failed; will retry', { topic: batch.topic, partition: batch.partition, attempt, error: (err as Error).message });
      await backoff(attempt, { initialMs: 200, maxMs: 10_000 });
      await heartbeat();
    }
  }
}
