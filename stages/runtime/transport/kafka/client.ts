// What every part of the Kafka transport shares: the kafkajs client, its admin connections, the codec and the
// deployed names, and the producers and consumers to close at the end (../kafka.ts puts them together).
import './negative-timeout.js';
import { Kafka, logLevel, type Admin, type Consumer, type LogEntry, type Producer as KafkaProducer } from 'kafkajs';
import type { Codec } from '../../codec.js';
import type { KafkaNames } from '../names.js';

export type KafkaLog = (level: 'warn' | 'error', message: string, extra?: Record<string, unknown>) => void;

export interface KafkaClient {
  kafka: Kafka;
  codec: Codec;
  names: KafkaNames;
  log: KafkaLog;
  /** The shared admin (kafkajs's retries: up to a minute through an outage). */
  admin(): Promise<Admin>;
  /** The readiness probe's admin: a single quick retry, so an outage answers "down" instead of hanging. */
  probeAdmin(): Promise<Admin>;
  consumers: Set<Consumer>;
  producers: Set<Promise<KafkaProducer>>;
  close(): Promise<void>;
}

/** kafkajs's log entries at WARN and ERROR, as this transport's log lines (component kafka, kafkajs namespace). */
export function kafkajsLogCreator(log: KafkaLog) {
  return () => ({ namespace, level, log: entry }: LogEntry) => {
    if (level !== logLevel.ERROR && level !== logLevel.WARN) return;
    const { message, timestamp: _t, logger: _l, ...extra } = entry;
    log(level === logLevel.ERROR ? 'error' : 'warn', message, { ...extra, kafkajs: namespace });
  };
}

export function kafkaClient(options: { brokers: string[]; clientId: string; codec: Codec; names: KafkaNames; log?: KafkaLog }): KafkaClient {
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
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

  const consumers = new Set<Consumer>();
  const producers = new Set<Promise<KafkaProducer>>();
  return {
    kafka, codec: options.codec, names: options.names, log: options.log ?? (() => {}),
    admin: getAdmin, probeAdmin, consumers, producers,
    async close() {
      await Promise.allSettled([...consumers].map((c) => c.disconnect()));
      await Promise.allSettled([...producers].map((p) => p.then((x) => x.disconnect())));
      if (admin) await admin.disconnect().catch(() => {});
      if (probe) await probe.then((a) => a.disconnect()).catch(() => {});
    },
  };
}
