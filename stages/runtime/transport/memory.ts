// The in-process transport: the embedded default (`npm start` with no KAFKA_BROKERS) and fast tests.
// It keeps Kafka's contract (transport.ts) inside one process: partitions chosen by key hash, one consumer
// loop per group and partition, commit after the handler, redelivery after a failure. Values are encoded
// with the same codec as on Kafka, so a record that would not fit its Avro schema fails here too.
//
// Bounded: a partition holds at most `maxBacklog` records that some group has not yet committed; `send`
// waits for room (back-pressure reaches the source, which then stops reading its queue). Records every
// group has committed are dropped, and a topic nobody reads keeps only its newest `maxBacklog`, so memory
// stays bounded.
//
// Nothing here survives a crash, so a durable send (`producer({ durable: true })`, what the sources use)
// resolves only once its records are safe in Postgres: when every group reading them committed them, and
// every record a stage sent while handling them (the next stage's input, a dead letter) was committed in
// turn (docs/pipeline.md#the-in-process-transport). Which records came of which is known through the batch
// being handled: a send made inside a consumer's batch belongs to that batch's durable sends (batchScope).
// A durable send whose records a stopped consumer would have to read fails instead of waiting for ever, so
// the source keeps its copy: from the moment that consumer begins to stop (its batch under way is not committed
// then), not when the batch ends; and a stage's send waiting for room in a topic whose reader stopped fails
// rather than holding that stage's stop. Records of a topic nobody in this process reads (a customer's DNP3
// topic) are settled when written.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Codec } from '../codec.js';
import { TransportClosedError, type Batch, type InMessage, type OutMessage, type PartitionLag, type Producer, type ProducerOptions, type SubscribeOptions, type Subscription, type Transport } from './transport.js';
import { partitionFor } from './partitioner.js';
import { backoff } from '../../../plumbing/retry.js';

/** One durable send: resolves when nothing it started is left unprocessed, fails when that cannot happen. */
class Ticket {
  /** Records (and batches) still to be committed, plus one for the send itself until it appended everything. */
  private outstanding = 1;
  settled = false;
  readonly done: Promise<void>;
  private resolve!: () => void;
  private reject!: (err: Error) => void;

  constructor() {
    this.done = new Promise<void>((resolve, reject) => { this.resolve = resolve; this.reject = reject; });
    this.done.catch(() => {}); // the sender awaits it; a failure after the sender gave up is not unhandled
  }

  hold(): void { this.outstanding++; }

  release(): void {
    if (this.settled || --this.outstanding > 0) return;
    this.settled = true;
    this.resolve();
  }

  fail(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(err);
  }
}

/** The batch a consumer is handling: what is sent meanwhile came of its durable sends; `running` until it stops. */
interface BatchScope { tickets: Ticket[]; running: () => boolean }
const batchScope = new AsyncLocalStorage<BatchScope>();

interface Entry { key: string; value: Buffer; timestamp: number; tickets: Ticket[] | null }

class Partition {
  /** Offset of log[0]: entries below it were committed by every group and dropped. */
  base = 0;
  log: Entry[] = [];
  /** Next offset to read, per group. */
  readonly positions = new Map<string, number>();
  /** Groups with a running subscription, and how many. */
  readonly live = new Map<string, number>();
  private readers: (() => void)[] = [];
  private writers: (() => void)[] = [];

  get end(): number { return this.base + this.log.length; }

  constructor(private readonly maxBacklog: number) {}

  append(entry: Entry): void {
    // A topic nobody in this process reads (a customer's DNP3 topic) keeps its newest records only, and never
    // holds its writers: nobody would ever make room.
    if (this.positions.size === 0 && this.log.length >= this.maxBacklog) {
      this.log.shift();
      this.base++;
    }
    if (entry.tickets) {
      const stopped = this.stoppedGroup();
      if (stopped !== undefined) fail(entry, new Error(`the in-process consumer ${stopped} is stopped: the record would not be processed before the process ends`));
      // Nobody in this process reads the topic: nothing to wait for.
      else if (this.positions.size === 0) entry.tickets = null;
      else for (const t of entry.tickets) t.hold();
    }
    this.log.push(entry);
    this.wake('readers');
  }

  /** A group that reads this partition but has no running subscription: what it has not committed waits for ever. */
  stoppedGroup(): string | undefined {
    return [...this.positions.keys()].find((g) => !this.live.has(g));
  }

  /** Records not yet committed by the slowest group (none while no group reads). */
  backlog(): number {
    let min = this.end;
    for (const p of this.positions.values()) min = Math.min(min, p);
    return this.end - min;
  }

  commit(group: string, next: number): void {
    this.positions.set(group, next);
    this.prune();
    this.wake('writers');
  }

  /** Drops the entries every group committed; their durable sends have one record less to wait for. */
  prune(): void {
    if (this.positions.size === 0) {
      for (const e of this.log) settle(e);
      return;
    }
    let min = Infinity;
    for (const p of this.positions.values()) min = Math.min(min, p);
    if (min > this.base) {
      for (const e of this.log.splice(0, min - this.base)) settle(e);
      this.base = min;
    }
  }

  /** Fails the durable sends of the records from offset `from` on: they cannot complete in this process. */
  abandon(from: number, err: Error): void {
    for (const e of this.log.slice(Math.max(0, from - this.base))) fail(e, err);
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

function settle(entry: Entry): void {
  for (const t of entry.tickets ?? []) t.release();
  entry.tickets = null;
}

function fail(entry: Entry, err: Error): void {
  for (const t of entry.tickets ?? []) t.fail(err);
  entry.tickets = null;
}

/** The unsettled durable sends among a batch's records. */
function ticketsOf(slice: { entry: Entry }[]): Ticket[] {
  const tickets = new Set<Ticket>();
  for (const { entry } of slice) for (const t of entry.tickets ?? []) if (!t.settled) tickets.add(t);
  return [...tickets];
}

type Append = (messages: OutMessage[], tickets: Ticket[] | null, sender?: BatchScope) => Promise<void>;

/** A producer over `append`: in a batch, part of its durable sends; outside, one send after the other. */
function producerOf(append: Append, { durable = false }: ProducerOptions): Producer {
  // A source may have several durable sends waiting for the pipeline at once (spool-source.ts): their
  // records are still appended one send after the other, so each device's records keep their order.
  let appending: Promise<void> = Promise.resolve();
  const inOrder = (messages: OutMessage[], tickets: Ticket[] | null): Promise<void> => {
    const mine = appending.then(() => append(messages, tickets));
    appending = mine.catch(() => {});
    return mine;
  };
  return {
    async send(messages: OutMessage[]) {
      // Sent while a batch is handled: part of that batch's durable sends, which wait for these records too.
      const inBatch = batchScope.getStore();
      if (inBatch) return append(messages, inBatch.tickets.length ? inBatch.tickets : null, inBatch);
      if (!durable) return inOrder(messages, null);
      const ticket = new Ticket();
      await inOrder(messages, [ticket]);
      ticket.release();
      return ticket.done;
    },
  };
}

/**
 * A subscription of `groupId` on `parts` stops. Nothing it handles from then on is committed (consume), so the
 * durable sends waiting on the group (its last subscription) fail now, not when its batch under way ends: their
 * sources keep their copies.
 */
function leave(parts: Partition[], groupId: string): void {
  for (const p of parts) {
    const left = (p.live.get(groupId) ?? 1) - 1;
    if (left > 0) p.live.set(groupId, left);
    else {
      p.live.delete(groupId);
      p.abandon(p.positions.get(groupId) ?? p.base, new Error(`the in-process consumer ${groupId} stopped before it processed the record`));
    }
    p.wake('readers');
  }
}

interface ConsumeSettings { codec: Codec; retryDelayMs: number }

/** One group's loop on one partition: a batch, the handler, the commit; after a failure the same batch again. */
async function consume<V>({ codec, retryDelayMs }: ConsumeSettings, options: SubscribeOptions<V>, index: number, part: Partition, running: () => boolean): Promise<void> {
  const { groupId, maxBatchSize = 500 } = options;
  let failures = 0;
  while (running()) {
    const next = part.positions.get(groupId)!;
    const slice = part.read(next, maxBatchSize);
    if (slice.length === 0) { await part.waitFor('readers'); continue; }
    try {
      await batchScope.run({ tickets: ticketsOf(slice), running }, () => handle(codec, options, index, slice, running));
      if (!running()) return;
      part.commit(groupId, slice[slice.length - 1]!.offset + 1);
      failures = 0;
    } catch {
      if (!running()) return; // stopping: no pause before a retry that will not come
      // Same contract as Kafka: nothing committed, the same records come again after a pause.
      failures++;
      await backoff(failures, { initialMs: retryDelayMs, maxMs: 30_000 });
    }
  }
}

/** One batch: decoded (undecodable records to onPoison), then the handler. */
async function handle<V>(codec: Codec, options: SubscribeOptions<V>, index: number, slice: { offset: number; entry: Entry }[], running: () => boolean): Promise<void> {
  const name = options.topic;
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
  if (messages.length) await options.eachBatch(batch, { isRunning: running, heartbeat: async () => {} });
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
      parts = Array.from({ length: partitions }, () => new Partition(maxBacklog));
      topics.set(name, parts);
    }
    return parts;
  };

  /**
   * Appends in order, waiting for room; each record joins `tickets` (the durable sends it is part of). The wait
   * ends in failure when it cannot end otherwise: the sending consumer stops, or a durable send's room is held by
   * a stopped reader.
   */
  async function append(messages: OutMessage[], tickets: Ticket[] | null, sender?: BatchScope): Promise<void> {
    for (const m of messages) {
      const part = topic(m.topic)[partitionFor(m.key, partitions)]!;
      while (part.backlog() >= maxBacklog && !closed) {
        if (sender && !sender.running()) throw new Error('the sending in-process consumer stopped while it waited for room');
        const stopped = tickets ? part.stoppedGroup() : undefined;
        if (stopped !== undefined) throw new Error(`the in-process consumer ${stopped} is stopped: ${m.topic} has no room for the record`);
        await part.waitFor('writers');
      }
      if (closed) throw new TransportClosedError();
      part.append({ key: m.key, value: await codec.encode(m.topic, m.value), timestamp: Date.now(), tickets });
    }
  }

  const producer = (options: ProducerOptions = {}) => producerOf(append, options);

  /** Every send waiting for room looks again (a consumer stopped: its wait may no longer end). */
  const wakeWriters = () => { for (const parts of topics.values()) for (const p of parts) p.wake('writers'); };

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
      for (const parts of topics.values()) {
        for (const p of parts) {
          if (p.live.has(groupId)) continue; // still read: only a group without members is forgotten
          p.positions.delete(groupId);
          p.prune();
          p.wake('writers');
        }
      }
    },
    async ensureTopics(names) { for (const n of names) topic(n); },
    producer,
    async subscribe<V>(options: SubscribeOptions<V>): Promise<Subscription> {
      const { groupId } = options;
      const parts = topic(options.topic);
      for (const part of parts) {
        if (options.fromTimestamp !== undefined) {
          const at = part.log.findIndex((e) => e.timestamp >= options.fromTimestamp!);
          part.positions.set(groupId, at === -1 ? part.end : part.base + at);
        } else if (!part.positions.has(groupId)) {
          part.positions.set(groupId, options.fromBeginning === false ? part.end : part.base);
        }
        part.live.set(groupId, (part.live.get(groupId) ?? 0) + 1);
      }
      await options.onAssign?.(parts.map((_, i) => i));
      let active = true;
      const running = () => active && !closed;
      const loops = parts.map((part, i) => consume({ codec, retryDelayMs }, options, i, part, running));
      const subscription: Subscription = {
        lag: () => groupLag(groupId, options.topic),
        async stop() {
          if (!active) return;
          active = false;
          leave(parts, groupId);
          wakeWriters();
          await Promise.allSettled(loops);
          await options.onRevoke?.(parts.map((_, i) => i));
          subscriptions.delete(subscription);
          members.delete(subscription);
        },
      };
      subscriptions.add(subscription);
      members.set(subscription, groupId);
      return subscription;
    },
    async ready() { return !closed; },
    async close() {
      await Promise.all([...subscriptions].map((s) => s.stop()));
      closed = true;
      for (const parts of topics.values()) {
        for (const p of parts) {
          p.abandon(p.base, new TransportClosedError());
          p.wake('readers');
          p.wake('writers');
        }
      }
    },
  };
}
