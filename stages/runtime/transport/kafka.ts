// The Kafka transport (kafkajs): what production and the real-infra tests run. See transport.ts for the
// contract; the notes here say how kafkajs is made to keep it.
import { Kafka, logLevel, type Admin, type Consumer, type EachBatchPayload, type LogEntry, type Producer as KafkaProducer } from 'kafkajs';
import type { Codec } from '../codec.js';
import { backoff } from '../../../plumbing/retry.js';
import { acknowledgedSend } from './acknowledged-send.js';
import { kafkaGroupMetrics } from './kafka-metrics.js';
import { kafkaNames, type KafkaNames } from './names.js';
import type { InMessage, OutMessage, PartitionLag, Producer, SubscribeOptions, Subscription, Transport } from './transport.js';

const MAX_RECORD_BATCH_BYTES = 16 * 1024 * 1024;
/** ConfigResourceTypes.TOPIC: kafkajs declares the enum in its types only, its ESM build has no such export. */
const TOPIC_RESOURCE = 2;
/** ConfigSource.TOPIC_CONFIG (DYNAMIC_TOPIC_CONFIG): a setting made on the topic itself, not inherited. */
const TOPIC_CONFIG_SOURCE = 1;

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
  log?: (level: 'warn' | 'error', message: string, extra?: Record<string, unknown>) => void;
}

/** kafkajs's log entries at WARN and ERROR, as this transport's log lines (component kafka, kafkajs namespace). */
export function kafkajsLogCreator(log: NonNullable<KafkaTransportOptions['log']>) {
  return () => ({ namespace, level, log: entry }: LogEntry) => {
    if (level !== logLevel.ERROR && level !== logLevel.WARN) return;
    const { message, timestamp: _t, logger: _l, ...extra } = entry;
    log(level === logLevel.ERROR ? 'error' : 'warn', message, { ...extra, kafkajs: namespace });
  };
}

export function kafkaTransport(options: KafkaTransportOptions): Transport {
  const { brokers, codec, clientId = 'faultline', partitions = 6, concurrency = partitions, sessionTimeoutMs = 30_000, names = kafkaNames() } = options;
  const log = options.log ?? (() => {});
  const { replicationFactor = null, minInsyncReplicas = null } = options;
  const kafka = new Kafka({
    clientId,
    brokers,
    // Without a log the caller wants none (tests); with one, kafkajs's warnings and errors reach it.
    logLevel: options.log ? logLevel.WARN : logLevel.NOTHING,
    ...(options.log ? { logCreator: kafkajsLogCreator(options.log) } : {}),
    // Connection failures are retried here; longer outages surface as errors the caller backs off from.
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 10_000 },
  });

  let admin: Admin | null = null;
  const getAdmin = async (): Promise<Admin> => {
    if (!admin) {
      const a = kafka.admin();
      await a.connect();
      admin = a;
    }
    return admin;
  };

  // Idempotent producers: acks from all in-sync replicas, no reordering on retry (maxInFlightRequests 1), so
  // per-key order survives a broker hiccup. One per caller (each stage, each source): with one in-flight
  // request per producer, a shared one would make every stage wait for the others' round trips.
  const producers = new Set<Promise<KafkaProducer>>();
  const acknowledged = acknowledgedSend();
  const connectProducer = (): (() => Promise<KafkaProducer>) => {
    let connecting: Promise<KafkaProducer> | null = null;
    return () => {
      if (!connecting) {
        const attempt: Promise<KafkaProducer> = (async () => {
          const p = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, createPartitioner: acknowledged.createPartitioner });
          await p.connect();
          return p;
        })();
        connecting = attempt.catch((err: unknown) => { connecting = null; producers.delete(attempt); throw err; });
        producers.add(attempt);
      }
      return connecting;
    };
  };

  const consumers = new Set<Consumer>();
  let probe: Promise<Admin> | null = null;
  // Readiness checks use their own admin with a single retry: the shared one retries for up to a minute,
  // which would keep a readiness probe (and the SQS pollers that ask before receiving) waiting through an outage.
  const probeAdmin = (): Promise<Admin> => {
    if (!probe) {
      const a = kafka.admin({ retry: { initialRetryTime: 100, retries: 1, maxRetryTime: 1000 } });
      probe = a.connect().then(() => a);
      probe.catch(() => { probe = null; });
    }
    return probe;
  };

  function producer(): Producer {
    const getProducer = connectProducer();
    // Sends that arrive while one is in flight wait and then go together in one request (group commit):
    // with one request in flight per producer, the callers sharing it (the bridge's pollers, the partitions a
    // segment works on at once) would otherwise each pay a whole round trip for a few records. Each caller's
    // promise settles with the request that carried its records, so it acknowledges its source only after
    // they were acknowledged, and a caller's records keep their order.
    let waiting: { records: { topic: string; key: string; value: Buffer }[]; done: (err?: unknown) => void }[] = [];
    let flushing = false;
    const flush = async () => {
      flushing = true;
      while (waiting.length) {
        const group = waiting;
        waiting = [];
        const byTopic = new Map<string, { key: string; value: Buffer }[]>();
        for (const { topic, key, value } of group.flatMap((g) => g.records)) {
          let list = byTopic.get(topic);
          if (!list) byTopic.set(topic, (list = []));
          list.push({ key, value });
        }
        try {
          const p = await getProducer();
          await acknowledged.send(
            (topicMessages) => p.sendBatch({ acks: -1, topicMessages }),
            [...byTopic].map(([topic, messages]) => ({ topic: names.topic(topic), messages })),
            (unanswered) => log('warn', 'Kafka acknowledged a send without some of its partitions; sending their records again', { unanswered }),
          );
          for (const g of group) g.done();
        } catch (err) {
          for (const g of group) g.done(err);
        }
      }
      flushing = false;
    };
    return {
      async send(messages: OutMessage[]) {
        if (messages.length === 0) return;
        const records = await Promise.all(messages.map(async (m) => ({ topic: m.topic, key: m.key, value: await codec.encode(m.topic, m.value) })));
        await new Promise<void>((resolve, reject) => {
          waiting.push({ records, done: (err) => (err === undefined ? resolve() : reject(err as Error)) });
          if (!flushing) void flush();
        });
      },
    };
  }

  async function subscribe<V>(opts: SubscribeOptions<V>): Promise<Subscription> {
    const topic = names.topic(opts.topic);
    const groupId = names.group(opts.groupId);
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: sessionTimeoutMs,
      heartbeatInterval: Math.floor(sessionTimeoutMs / 10),
      allowAutoTopicCreation: false,
      maxBytesPerPartition: 4 * 1024 * 1024,
      // How long a fetch waits for records when there are none: also how long leaving the group waits for
      // the fetch in flight (kafkajs's 5 s default made every replay and every shutdown 5 s longer).
      maxWaitTimeInMs: 500,
    });
    consumers.add(consumer);
    const groupMetrics = kafkaGroupMetrics(groupId, topic);
    // Per partition, the first record of the batch in hand: while it is not committed, the oldest unprocessed one.
    const heads = new Map<number, { offset: string; timestamp: number }>();

    // Partition ownership: kafkajs reports the new assignment on every join. Revoke what is gone and
    // assign what is new before any batch of those partitions runs (eachBatch awaits `membership`).
    let owned = new Set<number>();
    let membership: Promise<void> = Promise.resolve();
    // A group that starts at a time (replay) seeks each partition once, when first assigned. kafkajs applies
    // pending seeks at the start of every fetch, so the join event comes early enough. (admin.setOffsets
    // would do it too, but it runs a consumer of its own and waits out one fetch: 5 s per replay.)
    const startAt = opts.fromTimestamp === undefined ? null
      : new Map((await getAdmin().then((a) => a.fetchTopicOffsetsByTimestamp(topic, opts.fromTimestamp))).map((p) => [p.partition, p.offset]));
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      const assigned = new Set(event.payload.memberAssignment[topic] ?? []);
      const gone = [...owned].filter((p) => !assigned.has(p));
      const fresh = [...assigned].filter((p) => !owned.has(p));
      owned = assigned;
      groupMetrics.joined(assigned.size);
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

    let running = true;
    const join = async () => {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: opts.fromBeginning ?? true });
      await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, partitionsConsumedConcurrently: concurrency, eachBatch });
    };
    // kafkajs restarts a crashed consumer only after errors it deems retriable; after any other (seen when a
    // broker restarts mid-fetch) the consumer stays disconnected while the process runs on, consuming nothing.
    // Such a consumer is joined again here, with back-off, for as long as the subscription is wanted.
    consumer.on(consumer.events.CRASH, (event) => {
      const { error, restart } = event.payload;
      log(restart ? 'warn' : 'error', 'consumer crashed', { group: groupId, topic, kafkajsRestarts: restart, error: error.message, errorName: error.name });
      if (restart) return;
      // Out of the group, it owns nothing: caches of its partitions go, and are rebuilt on the next assignment.
      const gone = [...owned];
      owned = new Set();
      groupMetrics.left();
      membership = membership.then(async () => { if (gone.length) await opts.onRevoke?.(gone); });
      void (async () => {
        for (let attempt = 1; running; attempt++) {
          await backoff(attempt, { initialMs: 500, maxMs: 10_000 });
          if (!running) return;
          try {
            await join();
            log('warn', 'consumer joined its group again after a crash', { group: groupId, topic, attempt });
            return;
          } catch (err) {
            log('error', 'consumer could not join its group again; will retry', { group: groupId, topic, attempt, error: (err as Error).message });
          }
        }
      })();
    });

    // kafkajs heartbeats only between batches or when asked. A batch that takes longer than the session
    // timeout (a handler waiting on a locked table, a decode waiting on a frozen registry) got the member
    // thrown out of its group, and the stage stopped for good (found by test/resilience/backpressure).
    // So the membership is kept alive for as long as a batch is being handled.
    const eachBatch = async (payload: EachBatchPayload) => {
      const first = payload.batch.messages[0];
      if (first) heads.set(payload.batch.partition, { offset: first.offset, timestamp: Number(first.timestamp) });
      const keepAlive = setInterval(() => { payload.heartbeat().catch(() => {}); }, Math.max(500, Math.floor(sessionTimeoutMs / 5)));
      try {
        await handleBatch(payload);
      } finally {
        clearInterval(keepAlive);
      }
    };

    const handleBatch = async ({ batch, heartbeat, isRunning, isStale, resolveOffset }: EachBatchPayload) => {
      await membership;
      const messages: InMessage<V>[] = [];
      for (const m of batch.messages) {
        const raw: InMessage<Buffer> = {
          topic: opts.topic, partition: batch.partition, offset: m.offset, key: m.key?.toString('utf8') ?? '',
          value: m.value ?? Buffer.alloc(0), timestamp: Number(m.timestamp),
        };
        // A decode that failed because the registry is away (err.retriable, e.g. a schema id not cached yet
        // while the registry is down) is tried again; only bytes that can never decode are poison. Dead-
        // lettering on a transient error would drop good records during a registry outage.
        for (let attempt = 1; ; attempt++) {
          try {
            messages.push({ ...raw, value: await codec.decode<V>(opts.topic, raw.value) });
            break;
          } catch (err) {
            if ((err as { retriable?: unknown }).retriable === true) {
              if (!isRunning() || isStale()) return;
              log('warn', 'decode failed (registry unavailable?); will retry', { topic: batch.topic, partition: batch.partition, attempt, error: (err as Error).message });
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
      const last = batch.messages[batch.messages.length - 1];
      if (!last) return;
      // The handler is retried here rather than by kafkajs, so a failing batch is never skipped and the
      // group membership stays alive (heartbeat) while the database or broker is away.
      for (let attempt = 1; ; attempt++) {
        if (!isRunning() || isStale()) return;
        try {
          if (messages.length) await opts.eachBatch({ topic: opts.topic, partition: batch.partition, messages }, { isRunning: () => isRunning() && running, heartbeat });
          break;
        } catch (err) {
          log('warn', 'batch failed; will retry', { topic: batch.topic, partition: batch.partition, attempt, error: (err as Error).message });
          await backoff(attempt, { initialMs: 200, maxMs: 10_000 });
          await heartbeat();
        }
      }
      if (!isRunning() || isStale()) return;
      // resolveOffset moves kafkajs's own fetch position; commitOffsets makes it durable for the group.
      resolveOffset(last.offset);
      await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() }]);
    };

    await join();

    return {
      async lag(): Promise<PartitionLag[]> {
        return (await groupLag(opts.groupId, opts.topic)).map((p) => {
          const head = heads.get(p.partition);
          return head?.offset === p.next && BigInt(p.next) < BigInt(p.end) ? { ...p, oldestTimestamp: head.timestamp } : p;
        });
      },
      async stop() {
        if (!running) return;
        running = false;
        await consumer.disconnect();
        consumers.delete(consumer);
        await membership;
        if (owned.size) await opts.onRevoke?.([...owned]);
        owned = new Set();
        groupMetrics.left();
      },
    };
  }

  /** Replication of the topics this transport creates on a cluster of `brokers` (see the options). */
  function replication(brokers: number): { replicas: number; minInsync: number } {
    const replicas = replicationFactor ?? Math.max(1, Math.min(3, brokers));
    const minInsync = minInsyncReplicas ?? (replicas >= 3 ? 2 : 1);
    if (replicas > brokers) throw new Error(`KAFKA_REPLICATION_FACTOR is ${replicas} but the cluster has ${brokers} broker(s): topics cannot be created`);
    if (minInsync > replicas) throw new Error(`KAFKA_MIN_INSYNC_REPLICAS (${minInsync}) exceeds the replication factor (${replicas}): no write could succeed`);
    return { replicas, minInsync };
  }

  /** An existing topic whose retention.ms is not the one wanted gets it; its other settings stay as they are. */
  async function reconcileRetention(a: Admin, logicalTopics: string[]): Promise<void> {
    const wanted = [...new Set(logicalTopics)].filter((t) => options.retentionMs?.[t] !== undefined);
    if (wanted.length === 0) return;
    const { resources } = await a.describeConfigs({ includeSynonyms: false, resources: wanted.map((t) => ({ type: TOPIC_RESOURCE, name: names.topic(t) })) });
    for (const r of resources) {
      const logical = wanted.find((t) => names.topic(t) === r.resourceName)!;
      const want = String(options.retentionMs![logical]);
      const now = r.configEntries.find((e) => e.configName === 'retention.ms')?.configValue;
      if (now === want) continue;
      // AlterConfigs replaces the topic's overrides as a whole: send the others back unchanged.
      const overrides = r.configEntries.filter((e) => e.configSource === TOPIC_CONFIG_SOURCE && e.configName !== 'retention.ms');
      await a.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC_RESOURCE, name: r.resourceName, configEntries: [
        ...overrides.map((e) => ({ name: e.configName, value: e.configValue })), { name: 'retention.ms', value: want },
      ] }] });
      log('warn', `topic ${r.resourceName}: retention.ms changed from ${now ?? 'the broker default'} to ${want}`, { topic: r.resourceName, from: now, to: want });
    }
  }

  async function groupLag(logicalGroup: string, logicalTopic: string): Promise<PartitionLag[]> {
    const a = await getAdmin();
    const [topic, groupId] = [names.topic(logicalTopic), names.group(logicalGroup)];
    const [committed] = await a.fetchOffsets({ groupId, topics: [topic] });
    const ends = await a.fetchTopicOffsets(topic);
    return ends.map(({ partition, high, low }) => {
      const c = committed?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
      // No commit yet: the group starts at the beginning of what the log still holds.
      return { partition, next: c === '-1' ? low : c, end: high };
    });
  }

  return {
    kind: 'kafka',
    groupLag,
    async topicRange(logicalTopic, fromTimestamp) {
      const a = await getAdmin();
      const topic = names.topic(logicalTopic);
      const ends = await a.fetchTopicOffsets(topic);
      const starts = await a.fetchTopicOffsetsByTimestamp(topic, fromTimestamp);
      return ends.map(({ partition, high, low }) => {
        const start = starts.find((s) => s.partition === partition)?.offset ?? high;
        // Kafka answers -1 for "nothing at or after that time": the range is empty.
        return { partition, start: start === '-1' ? high : BigInt(start) < BigInt(low) ? low : start, end: high };
      });
    },
    async groupMembers(logicalGroup) {
      const a = await getAdmin();
      const { groups } = await a.describeGroups([names.group(logicalGroup)]);
      return groups[0]?.members.length ?? 0;
    },
    async deleteGroup(logicalGroup) {
      const a = await getAdmin();
      const groupId = names.group(logicalGroup);
      // A member that just left may still be on its way out (the group is rebalancing): try for a few seconds.
      for (let attempt = 1; ; attempt++) {
        try {
          await a.deleteGroups([groupId]);
          return;
        } catch (err) {
          const codes = ((err as { groups?: { errorCode?: number; error?: { type?: string } }[] }).groups ?? []).map((g) => g.error?.type);
          if (codes.includes('GROUP_ID_NOT_FOUND')) return;
          if (attempt >= 20) throw err;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    },
    async ensureTopics(topics) {
      const a = await getAdmin();
      const existing = new Set(await a.listTopics());
      await reconcileRetention(a, topics.filter((t) => existing.has(names.topic(t))));
      const missing = [...new Set(topics.map(names.topic))].filter((t) => !existing.has(t));
      if (missing.length === 0) return;
      const retentionOf = (topic: string) => Object.entries(options.retentionMs ?? {}).find(([t]) => names.topic(t) === topic)?.[1];
      try {
        // A batch of a few large check-ins (a body may be up to MAX_MESSAGE_BYTES) must fit a record batch.
        const { replicas, minInsync } = replication((await a.describeCluster()).brokers.length);
        const configEntries = [
          { name: 'max.message.bytes', value: String(MAX_RECORD_BATCH_BYTES) },
          { name: 'min.insync.replicas', value: String(minInsync) },
        ];
        await a.createTopics({ waitForLeaders: true, topics: missing.map((topic) => {
          const retention = retentionOf(topic);
          return { topic, numPartitions: partitions, replicationFactor: replicas, configEntries: retention === undefined ? configEntries : [...configEntries, { name: 'retention.ms', value: String(retention) }] };
        }) });
      } catch (err) {
        // Another process may have created it between list and create, or (on a cluster) the leaders' wait
        // met a broker that does not know the new topic yet: fine, as long as it exists now.
        if ((err as Error).message.startsWith('KAFKA_REPLICATION_FACTOR') || (err as Error).message.startsWith('KAFKA_MIN_INSYNC')) throw err;
        await new Promise((r) => setTimeout(r, 500));
        const now = new Set(await a.listTopics());
        if (!missing.every((t) => now.has(t))) throw err;
      }
      // On a cluster the other brokers learn of a new topic a moment after its leaders are elected; a produce
      // or offset request that reaches one before then fails (UNKNOWN_TOPIC_OR_PARTITION, seen on the
      // three-broker cluster as a bridge that died at start). Wait until every partition answers.
      for (let attempt = 1; ; attempt++) {
        try {
          for (const t of missing) await a.fetchTopicOffsets(t);
          return;
        } catch (err) {
          if (attempt >= 50) throw err;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    },
    producer,
    subscribe,
    async partitionHealth(logicalTopics) {
      // The probe's admin (one quick retry), so an outage answers "down" instead of hanging a readiness probe.
      const a = await probeAdmin();
      const existing = new Set(await a.listTopics());
      const topics = [...new Set(logicalTopics.map(names.topic))].filter((t) => existing.has(t));
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
    },
    async retentionMs(logicalTopic) {
      const a = await getAdmin();
      const { resources } = await a.describeConfigs({ includeSynonyms: false, resources: [{ type: TOPIC_RESOURCE, name: names.topic(logicalTopic), configNames: ['retention.ms'] }] });
      const ms = Number(resources[0]?.configEntries.find((e) => e.configName === 'retention.ms')?.configValue ?? NaN);
      return Number.isFinite(ms) && ms >= 0 ? ms : null;
    },
    async ready() {
      try {
        await (await probeAdmin()).describeCluster();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await Promise.allSettled([...consumers].map((c) => c.disconnect()));
      await Promise.allSettled([...producers].map((p) => p.then((x) => x.disconnect())));
      if (admin) await admin.disconnect().catch(() => {});
      if (probe) await probe.then((a) => a.disconnect()).catch(() => {});
    },
  };
}
