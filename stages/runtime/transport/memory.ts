// The in-process transport: the embedded default (`npm start` with no KAFKA_BROKERS) and fast tests.
// It keeps Kafka's contract (transport.ts) inside one process: partitions chosen by key hash, one consumer
// loop per group and partition, commit after the handler, redelivery after a failure. Values are encoded
// with the same codec as on Kafka, so a record that would not fit its Avro schema fails here too.
//
// Bounded: a partition holds at most `maxBacklog` records that some group has not yet committed; `send`
// waits for room (back-pressure reaches the source, which then stops reading its queue). Records every
// group has committed are dropped, so memory stays bounded.
//
// Nothing survives a restart: a source acknowledges its message once `send` resolved, as on Kafka, so on
// the embedded default a crash loses what was still between stages. That is the price of running without a
// broker; the README says so, and production runs on Kafka.
import type { Codec } from '../codec.js';
import type { Batch, InMessage, OutMessage, PartitionLag, Producer, SubscribeOptions, Subscription, Transport } from './transport.js';
import { partitionFor } from './partitioner.js';
import { backoff } from '../../../plumbing/retry.js';

interface Entry { key: string; value: Buffer; timestamp: number }

class Partition {
  /** Offset of log[0]: entries below it were committed by every group and dropped. */
  base = 0;
  log: Entry[] = [];
  /** Next offset to read, per group. */
  readonly positions = new Map<string, number>();
  private readers: (() => void)[] = [];
  private writers: (() => void)[] = [];

  get end(): number { return this.base + this.log.length; }

  append(entry: Entry): void {
    this.log.push(entry);
    this.wake('readers');
  }

  /** Records not yet committed by the slowest group (all of them while no group reads). */
  backlog(): number {
    let min = this.end;
    for (const p of this.positions.values()) min = Math.min(min, p);
    return this.positions.size === 0 ? this.log.length : this.end - min;
  }

  commit(group: string, next: number): void {
    this.positions.set(group, next);
    let min = Infinity;
    for (const p of this.positions.values()) min = Math.min(min, p);
    if (min > this.base && min !== Infinity) {
      this.log.splice(0, min - this.base);
      this.base = min;
    }
    this.wake('writers');
  }

  read(from: number, max: number): { offset: number; entry: Entry }[] {
    const start = Math.max(from, this.base) - this.base;
    return this.log.slice(start, start + max).map((entry, i) => ({ offset: this.base + start + i, entry }));
  }

  waitFor(kind: 'readers' | 'writers'): Promise<void> {
    return new Promise((resolve) => this[kind].push(resolve));
  }

  wake(kind: 'readers' | 'writers'): void {
    const waiting = this[kind];
    this[kind] = [];
    for (const resolve of waiting) resolve();
  }
}

export interface MemoryTransportOptions {
  codec: Codec;
  partitions?: number;
  /** Uncommitted records a partition may hold before `send` waits. */
  maxBacklog?: number;
  /** Pause before a failed batch is delivered again. */
  retryDelayMs?: number;
}

export function memoryTransport({ codec, partitions = 8, maxBacklog = 5_000, retryDelayMs = 200 }: MemoryTransportOptions): Transport {
  const topics = new Map<string, Partition[]>();
  let closed = false;
  const subscriptions = new Set<Subscription>();
  /** The group of each live subscription (groupMembers). */
  const members = new Map<Subscription, string>();

  const topic = (name: string): Partition[] => {
    let parts = topics.get(name);
    if (!parts) {
      parts = Array.from({ length: partitions }, () => new Partition());
      topics.set(name, parts);
    }
    return parts;
  };

  const producer: Producer = {
    async send(messages: OutMessage[]) {
      for (const m of messages) {
        const part = topic(m.topic)[partitionFor(m.key, partitions)]!;
        while (part.backlog() >= maxBacklog && !closed) await part.waitFor('writers');
        if (closed) throw new Error('transport closed');
        part.append({ key: m.key, value: await codec.encode(m.topic, m.value), timestamp: Date.now() });
      }
    },
  };

  async function consume<V>(options: SubscribeOptions<V>, index: number, part: Partition, running: () => boolean): Promise<void> {
    const { groupId, topic: name, maxBatchSize = 500 } = options;
    let failures = 0;
    while (running()) {
      const next = part.positions.get(groupId)!;
      const slice = part.read(next, maxBatchSize);
      if (slice.length === 0) { await part.waitFor('readers'); continue; }
      const messages: InMessage<V>[] = [];
      for (const { offset, entry } of slice) {
        const raw: InMessage<Buffer> = { topic: name, partition: index, offset: String(offset), key: entry.key, value: entry.value, timestamp: entry.timestamp };
        try {
          messages.push({ ...raw, value: await codec.decode<V>(name, entry.value) });
        } catch (err) {
          if (!options.onPoison) throw err;
          await options.onPoison(raw, err as Error);
        }
      }
      const batch: Batch<V> = { topic: name, partition: index, messages };
      try {
        if (messages.length) await options.eachBatch(batch, { isRunning: running, heartbeat: async () => {} });
        if (!running()) return;
        part.commit(groupId, slice[slice.length - 1]!.offset + 1);
        failures = 0;
      } catch {
        // Same contract as Kafka: nothing committed, the same records come again after a pause.
        failures++;
        await backoff(failures, { initialMs: retryDelayMs, maxMs: 30_000 });
      }
    }
  }

  const groupLag = async (groupId: string, name: string): Promise<PartitionLag[]> =>
    topic(name).map((p, partition) => {
      const next = p.positions.get(groupId) ?? p.base;
      const oldest = p.log[next - p.base]?.timestamp;
      return { partition, next: String(next), end: String(p.end), ...(oldest === undefined ? {} : { oldestTimestamp: oldest }) };
    });

  return {
    kind: 'memory',
    groupLag,
    async topicRange(name, fromTimestamp) {
      return topic(name).map((p, partition) => {
        const at = p.log.findIndex((e) => e.timestamp >= fromTimestamp);
        return { partition, start: String(at === -1 ? p.end : p.base + at), end: String(p.end) };
      });
    },
    async groupMembers(groupId) {
      return [...members.values()].filter((g) => g === groupId).length;
    },
    async deleteGroup(groupId) {
      for (const parts of topics.values()) for (const p of parts) p.positions.delete(groupId);
    },
    async ensureTopics(names) { for (const n of names) topic(n); },
    producer: () => producer,
    async subscribe<V>(options: SubscribeOptions<V>): Promise<Subscription> {
      const parts = topic(options.topic);
      for (const part of parts) {
        if (options.fromTimestamp !== undefined) {
          const at = part.log.findIndex((e) => e.timestamp >= options.fromTimestamp!);
          part.positions.set(options.groupId, at === -1 ? part.end : part.base + at);
        } else if (!part.positions.has(options.groupId)) {
          part.positions.set(options.groupId, options.fromBeginning === false ? part.end : part.base);
        }
      }
      await options.onAssign?.(parts.map((_, i) => i));
      let active = true;
      const running = () => active && !closed;
      const loops = parts.map((part, i) => consume(options, i, part, running));
      const subscription: Subscription = {
        lag: () => groupLag(options.groupId, options.topic),
        async stop() {
          if (!active) return;
          active = false;
          for (const p of parts) p.wake('readers');
          await Promise.allSettled(loops);
          await options.onRevoke?.(parts.map((_, i) => i));
          subscriptions.delete(subscription);
          members.delete(subscription);
        },
      };
      subscriptions.add(subscription);
      members.set(subscription, options.groupId);
      return subscription;
    },
    async ready() { return !closed; },
    async close() {
      await Promise.all([...subscriptions].map((s) => s.stop()));
      closed = true;
      for (const parts of topics.values()) for (const p of parts) { p.wake('readers'); p.wake('writers'); }
    },
  };
}
