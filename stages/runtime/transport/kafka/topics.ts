// Topics as the admin sees them: creating the missing ones with the wanted replication and retention, the
// offsets a replay would read, their retention, and the partitions' health for /readyz.
import type { Admin } from 'kafkajs';
import type { PartitionHealth, TopicRange } from '../transport.js';
import type { KafkaClient } from './client.js';

const MAX_RECORD_BATCH_BYTES = 16 * 1024 * 1024;
/** ConfigResourceTypes.TOPIC: kafkajs declares the enum in its types only, its ESM build has no such export. */
const TOPIC_RESOURCE = 2;
/** ConfigSource.TOPIC_CONFIG (DYNAMIC_TOPIC_CONFIG): a setting made on the topic itself, not inherited. */
const TOPIC_CONFIG_SOURCE = 1;

/** How topics this transport creates are made (../kafka.ts KafkaTransportOptions says what each means). */
export interface TopicSettings {
  partitions: number;
  replicationFactor: number | null;
  minInsyncReplicas: number | null;
  retentionMs: Readonly<Record<string, number>> | undefined;
}

/** Replication of the topics this transport creates on a cluster of `brokers` (see the options). */
function replication(settings: TopicSettings, brokers: number): { replicas: number; minInsync: number } {
  const replicas = settings.replicationFactor ?? Math.max(1, Math.min(3, brokers));
  const minInsync = settings.minInsyncReplicas ?? (replicas >= 3 ? 2 : 1);
  if (replicas > brokers) throw new Error(`KAFKA_REPLICATION_FACTOR is ${replicas} but the cluster has ${brokers} broker(s): topics cannot be created`);
  if (minInsync > replicas) throw new Error(`KAFKA_MIN_INSYNC_REPLICAS (${minInsync}) exceeds the replication factor (${replicas}): no write could succeed`);
  return { replicas, minInsync };
}

/** An existing topic whose retention.ms is not the one wanted gets it; its other settings stay as they are. */
async function reconcileRetention(client: KafkaClient, settings: TopicSettings, a: Admin, logicalTopics: string[]): Promise<void> {
  const { names } = client;
  const wanted = [...new Set(logicalTopics)].filter((t) => settings.retentionMs?.[t] !== undefined);
  if (wanted.length === 0) return;
  const { resources } = await a.describeConfigs({ includeSynonyms: false, resources: wanted.map((t) => ({ type: TOPIC_RESOURCE, name: names.topic(t) })) });
  for (const r of resources) {
    const logical = wanted.find((t) => names.topic(t) === r.resourceName)!;
    const want = String(settings.retentionMs![logical]);
    const now = r.configEntries.find((e) => e.configName === 'retention.ms')?.configValue;
    if (now === want) continue;
    // AlterConfigs replaces the topic's overrides as a whole: send the others back unchanged.
    const overrides = r.configEntries.filter((e) => e.configSource === TOPIC_CONFIG_SOURCE && e.configName !== 'retention.ms');
    await a.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC_RESOURCE, name: r.resourceName, configEntries: [
      ...overrides.map((e) => ({ name: e.configName, value: e.configValue })), { name: 'retention.ms', value: want },
    ] }] });
    client.log('warn', `topic ${r.resourceName}: retention.ms changed from ${now ?? 'the broker default'} to ${want}`, { topic: r.resourceName, from: now, to: want });
  }
}

/** Answers of a broker that does not know a topic's partitions yet, as on a cluster just after its creation. */
const NOT_KNOWN_YET = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'NOT_LEADER_FOR_PARTITION']);

/** kafkajs puts the protocol's error type on the error, or on the one its retrier gave up on. */
export function isNotKnownYet(err: unknown): boolean {
  const e = err as { type?: string; originalError?: { type?: string }; cause?: { type?: string } } | undefined;
  return [e?.type, e?.originalError?.type, e?.cause?.type].some((t) => t !== undefined && NOT_KNOWN_YET.has(t));
}

/**
 * Creates the missing topics and waits until every one answers. On a cluster the other brokers learn of a new
 * topic a moment after its leaders are elected, also when another process created it: a request that reaches
 * one before then fails with UNKNOWN_TOPIC_OR_PARTITION or LEADER_NOT_AVAILABLE (seen on the three-broker
 * cluster as a bridge that died at start, twice: once after creating the topics, once after finding them
 * created by the pipeline). Such a failure anywhere in here starts it over, for up to ten seconds.
 */
export async function ensureTopics(client: KafkaClient, settings: TopicSettings, topics: string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ensureTopicsOnce(client, settings, topics);
      return;
    } catch (err) {
      if (attempt >= 40 || !isNotKnownYet(err)) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function ensureTopicsOnce(client: KafkaClient, settings: TopicSettings, topics: string[]): Promise<void> {
  const { names } = client;
  const a = await client.admin();
  const existing = new Set(await a.listTopics());
  const physical = [...new Set(topics.map(names.topic))];
  const missing = physical.filter((t) => !existing.has(t));
  const retentionOf = (topic: string) => Object.entries(settings.retentionMs ?? {}).find(([t]) => names.topic(t) === topic)?.[1];
  if (missing.length) await createTopics(a, settings, missing, retentionOf);
  // Every topic answers (its partitions' offsets) before anything else is asked of it.
  for (const t of physical) await a.fetchTopicOffsets(t);
  await reconcileRetention(client, settings, a, topics.filter((t) => existing.has(names.topic(t))));
}

async function createTopics(a: Admin, settings: TopicSettings, missing: string[], retentionOf: (topic: string) => number | undefined): Promise<void> {
  try {
    // A batch of a few large check-ins (a body may be up to MAX_MESSAGE_BYTES) must fit a record batch.
    const { replicas, minInsync } = replication(settings, (await a.describeCluster()).brokers.length);
    const configEntries = [
      { name: 'max.message.bytes', value: String(MAX_RECORD_BATCH_BYTES) },
      { name: 'min.insync.replicas', value: String(minInsync) },
    ];
    await a.createTopics({ waitForLeaders: true, topics: missing.map((topic) => {
      const retention = retentionOf(topic);
      return { topic, numPartitions: settings.partitions, replicationFactor: replicas, configEntries: retention === undefined ? configEntries : [...configEntries, { name: 'retention.ms', value: String(retention) }] };
    }) });
  } catch (err) {
    // Another process may have created it between list and create, or (on a cluster) the leaders' wait
    // met a broker that does not know the new topic yet: fine, as long as it exists now.
    if ((err as Error).message.startsWith('KAFKA_REPLICATION_FACTOR') || (err as Error).message.startsWith('KAFKA_MIN_INSYNC')) throw err;
    await new Promise((r) => setTimeout(r, 500));
    const now = new Set(await a.listTopics());
    if (!missing.every((t) => now.has(t))) throw err;
  }
}

export async function topicRange(client: KafkaClient, logicalTopic: string, fromTimestamp: number): Promise<TopicRange[]> {
  const a = await client.admin();
  const topic = client.names.topic(logicalTopic);
  const ends = await a.fetchTopicOffsets(topic);
  const starts = await a.fetchTopicOffsetsByTimestamp(topic, fromTimestamp);
  return ends.map(({ partition, high, low }) => {
    const start = starts.find((s) => s.partition === partition)?.offset ?? high;
    // Kafka answers -1 for "nothing at or after that time": the range is empty.
    return { partition, start: start === '-1' ? high : BigInt(start) < BigInt(low) ? low : start, end: high };
  });
}

export async function partitionHealth(client: KafkaClient, logicalTopics: string[]): Promise<PartitionHealth> {
  // The probe's admin (one quick retry), so an outage answers "down" instead of hanging a readiness probe.
  const a = await client.probeAdmin();
  const existing = new Set(await a.listTopics());
  const topics = [...new Set(logicalTopics.map(client.names.topic))].filter((t) => existing.has(t));
  const health = { underReplicated: [] as string[], unavailable: [] as string[] };
  if (topics.length === 0) return health;
  const { topics: metadata } = await a.fetchTopicMetadata({ topics });
  // A partition is unavailable when it has no leader or fewer copies in sync than its topic's
  // min.insync.replicas (an acks=all write is refused); under-replicated when a copy is out of sync.
  const configs = await a.describeConfigs({ includeSynonyms: false, resources: topics.map((name) => ({ type: TOPIC_RESOURCE, name, configNames: ['min.insync.replicas'] })) });
  const minIsr = new Map(configs.resources.map((r) => [r.resourceName, Number(r.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue ?? '1')]));
  for (const t of metadata) {
    for (const p of t.partitions) {
      const name = `${t.name}/${p.partitionId}`;
      if (p.leader < 0 || p.isr.length < (minIsr.get(t.name) ?? 1)) health.unavailable.push(name);
      else if (p.isr.length < p.replicas.length) health.underReplicated.push(name);
    }
  }
  return health;
}

export async function retentionMs(client: KafkaClient, logicalTopic: string): Promise<number | null> {
  const a = await client.admin();
  const { resources } = await a.describeConfigs({ includeSynonyms: false, resources: [{ type: TOPIC_RESOURCE, name: client.names.topic(logicalTopic), configNames: ['retention.ms'] }] });
  const ms = Number(resources[0]?.configEntries.find((e) => e.configName === 'retention.ms')?.configValue ?? NaN);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

/** True when the broker answers the probe's admin (for /readyz). */
export async function brokerReady(client: KafkaClient): Promise<boolean> {
  try {
    await (await client.probeAdmin()).describeCluster();
    return true;
  } catch {
    return false;
  }
}
