// The Kafka transport (kafkajs): what production and the real-infra tests run. See transport.ts for the
// contract; the notes in kafka/ say how kafkajs is made to keep it: the shared client (client.ts), the
// group-commit producer (producer.ts), a subscription (subscribe.ts) with its partition ownership
// (membership.ts) and its batches, offsets and commits (batch.ts), and the admin's topics and groups
// (topics.ts, groups.ts). Its metrics are kafka-metrics.ts.
import type { Codec } from '../codec.js';
import { acknowledgedSend } from './acknowledged-send.js';
import { kafkaClient, type KafkaLog } from './kafka/client.js';
import { deleteGroup, groupLag, groupMembers } from './kafka/groups.js';
import { groupCommitProducer } from './kafka/producer.js';
import { subscribe } from './kafka/subscribe.js';
import { brokerReady, ensureTopics, partitionHealth, retentionMs, topicRange } from './kafka/topics.js';
import { kafkaNames, type KafkaNames } from './names.js';
import type { Transport } from './transport.js';

export interface KafkaTransportOptions {
  brokers: string[];
  codec: Codec;
  clientId?: string;
  /** Partitions of topics this transport creates. Stages scale out up to this many processes. */
  partitions?: number;
  /**
   * Partitions one consumer works on at once (kafkajs partitionsConsumedConcurrently). Default: all of
   * them. kafkajs fetches again only when every batch of the last fetch is done, so with fewer workers than
   * partitions each hop waits for several rounds of publish + commit (3 of 6: p50 636 ms from SQS to stored
   * at 300/s; 6 of 6: 427 ms).
   */
  concurrency?: number;
  sessionTimeoutMs?: number;
  /**
   * Copies of each partition of the topics this transport creates, and how many must be in sync for a write
   * to succeed (acks=all). null: from the cluster's size when the topics are created, min(3, brokers) and 2
   * with three copies or more, else 1 (docs/decisions.md#production-shape).
   */
  replicationFactor?: number | null;
  minInsyncReplicas?: number | null;
  /**
   * retention.ms of topics by logical name (fi.raw.v1: RAW_RETENTION_DAYS): set when the topic is created, and
   * an existing topic's is changed to it (with a warning naming both values). Others keep the broker's default.
   */
  retentionMs?: Readonly<Record<string, number>>;
  /** Deployed topic and group names (names.ts). Default: the logical names. */
  names?: KafkaNames;
  /** Where this transport's warnings go, and kafkajs's own warnings and errors (its INFO and DEBUG are dropped). */
  log?: KafkaLog;
}

export function kafkaTransport(options: KafkaTransportOptions): Transport {
  const { brokers, codec, clientId = 'faultline', partitions = 6, concurrency = partitions, sessionTimeoutMs = 30_000, names = kafkaNames() } = options;
  const { replicationFactor = null, minInsyncReplicas = null } = options;
  const client = kafkaClient({ brokers, clientId, codec, names, ...(options.log ? { log: options.log } : {}) });
  const topics = { partitions, replicationFactor, minInsyncReplicas, retentionMs: options.retentionMs };
  // One for all producers: it notes each record's partition for the send that checks every one was answered.
  const acknowledged = acknowledgedSend();
  return {
    kind: 'kafka',
    groupLag: (group, topic) => groupLag(client, group, topic),
    topicRange: (topic, fromTimestamp) => topicRange(client, topic, fromTimestamp),
    groupMembers: (group) => groupMembers(client, group),
    deleteGroup: (group) => deleteGroup(client, group),
    ensureTopics: (logicalTopics) => ensureTopics(client, topics, logicalTopics),
    // Every send is durable here (acks=all), so ProducerOptions.durable changes nothing.
    producer: () => groupCommitProducer(client, acknowledged),
    subscribe: (opts) => subscribe(client, { sessionTimeoutMs, concurrency }, opts),
    partitionHealth: (logicalTopics) => partitionHealth(client, logicalTopics),
    retentionMs: (topic) => retentionMs(client, topic),
    ready: () => brokerReady(client),
    close: () => client.close(),
  };
}
