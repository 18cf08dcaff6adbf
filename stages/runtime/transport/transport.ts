// The one interface every stage is written against. Two implementations: `kafka.ts` (production and the
// real-infra tests) and `memory.ts` (the embedded default and fast tests). Both pass
// test/contract/transport.case.ts.
//
// Contract (at-least-once, ordered per key):
// - a record's partition is a function of its key only, so records of one device stay in order;
// - `eachBatch` gets records of ONE partition in offset order; when it resolves, their offsets are committed;
//   when it throws, nothing is committed and the same records are delivered again (after a back-off);
// - `send` resolves only when every record is accepted (Kafka: acked by the broker, so durably). A source that
//   acknowledges its own origin afterwards (SQS delete, spool file removal) sends through a durable producer:
//   on Kafka the same, in-process only once the records and all that came of them were committed (memory.ts);
// - `onAssign` runs before the first batch of a partition, `onRevoke` after its last one, so a stage can
//   drop and rebuild per-device caches; on Kafka also for a partition kept across a lapse of membership (the
//   member was fenced between two joins and joined under a new id: kafka/membership.ts).

import { FaultlineError } from '../../../errors/base.js';

/** A send or a delivery cut short because the transport is closing (shutdown): retriable, the batch comes again. */
export class TransportClosedError extends FaultlineError<'TRANSPORT_CLOSED'> {
  constructor() { super('TRANSPORT_CLOSED', 'transport closed', { retriable: true }); }
}

export interface InMessage<V> {
  topic: string;
  partition: number;
  /** Kafka offsets are 64-bit; kept as a decimal string like kafkajs does. */
  offset: string;
  key: string;
  value: V;
  /** Milliseconds since the epoch: when the record was produced. */
  timestamp: number;
}

export interface OutMessage<V = unknown> {
  topic: string;
  key: string;
  value: V;
}

export interface Batch<V> {
  topic: string;
  partition: number;
  messages: InMessage<V>[];
}

export interface BatchControls {
  /** False once the consumer is stopping: long handlers should return early (without committing). */
  isRunning(): boolean;
  /** Keeps group membership alive during a long batch. */
  heartbeat(): Promise<void>;
}

export interface SubscribeOptions<V> {
  groupId: string;
  topic: string;
  /** Where a group with no committed offset starts. Default: the beginning (nothing is ever skipped). */
  fromBeginning?: boolean;
  /** Start from the first record at or after this time (ms), ignoring committed offsets (replay). */
  fromTimestamp?: number;
  maxBatchSize?: number;
  eachBatch(batch: Batch<V>, controls: BatchControls): Promise<void>;
  onAssign?(partitions: number[]): Promise<void>;
  onRevoke?(partitions: number[]): Promise<void>;
  /** A record whose value cannot be decoded: the caller dead-letters it; the batch then goes on without it. */
  onPoison?(message: InMessage<Buffer>, error: Error): Promise<void>;
}

/** Where a group stands on one partition: lag = end - next. */
export interface PartitionLag {
  partition: number;
  next: string;
  end: string;
  /** Append time (ms) of the record at `next`, when the transport knows it (the oldest unprocessed record). */
  oldestTimestamp?: number;
}

export interface Subscription {
  /** Per partition, the next offset to read and the end of the log. */
  lag(): Promise<PartitionLag[]>;
  stop(): Promise<void>;
}

export interface Producer {
  send(messages: OutMessage[]): Promise<void>;
}

export interface ProducerOptions {
  /**
   * For a source that removes its own copy once `send` resolved: resolve only when the records can no longer
   * be lost. Kafka: the broker's acknowledgement, as every send. In-process, where memory does not survive a
   * crash: once every stage that reads them, and every stage that reads what came of them, committed them.
   */
  durable?: boolean;
}

/** Per partition: the first offset at or after a time, and the end of the log now. */
export interface TopicRange { partition: number; start: string; end: string }

export interface PartitionHealth { underReplicated: string[]; unavailable: string[] }

export interface Transport {
  readonly kind: 'kafka' | 'memory';
  /** What a consumer starting at `fromTimestamp` (ms; 0: the beginning) would read of `topic` today. */
  topicRange(topic: string, fromTimestamp: number): Promise<TopicRange[]>;
  /** Where consumer group `groupId` stands on `topic`, as Subscription.lag. */
  groupLag(groupId: string, topic: string): Promise<PartitionLag[]>;
  /** How many consumers are members of the group now (0: nobody is consuming). */
  groupMembers(groupId: string): Promise<number>;
  /** Forgets a group that has no member any more (its committed offsets go with it). */
  deleteGroup(groupId: string): Promise<void>;
  /** Creates topics that do not exist yet (idempotent). */
  ensureTopics(topics: string[]): Promise<void>;
  /** A producer for one caller (a stage, a source); records of one producer keep their order. */
  producer(options?: ProducerOptions): Producer;
  subscribe<V>(options: SubscribeOptions<V>): Promise<Subscription>;
  /**
   * Kafka only, for /readyz: partitions (`topic/partition`) of these logical topics that have no leader or
   * fewer in-sync copies than min.insync.replicas (unavailable), or a copy out of sync (under-replicated).
   * Topics that do not exist are left out.
   */
  partitionHealth?(topics: string[]): Promise<PartitionHealth>;
  /** Kafka only: the topic's retention.ms as the broker applies it (null: kept forever). */
  retentionMs?(topic: string): Promise<number | null>;
  /** True when the broker (and registry, for Kafka) answer: for /readyz. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}
