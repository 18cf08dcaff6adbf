// Picks the transport: Kafka with the schema registry when KAFKA_BROKERS is set, else in-process.
import type { Settings } from '../../../config/settings.js';
import { log } from '../../../config/log.js';
import { TOPICS } from '../../../schemas/avro/topics.js';
import { createRegistry } from '../../../schemas/registry.js';
import { localAvroCodec, registryCodec } from '../codec.js';
import { kafkaTransport } from './kafka.js';
import { kafkaNames } from './names.js';
import { memoryTransport } from './memory.js';
import type { Transport } from './transport.js';

/** For /readyz: the registry answers a cheap call. */
export async function registryReady(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/subjects`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

export async function transportFromSettings(settings: Settings, clientId = 'faultline'): Promise<Transport> {
  if (!settings.kafkaBrokers) return memoryTransport({ codec: localAvroCodec() });
  const registry = createRegistry(settings.schemaRegistryUrl!);
  const names = kafkaNames(settings.kafkaNamespace);
  const transport = kafkaTransport({
    brokers: settings.kafkaBrokers,
    codec: await registryCodec(registry, names),
    names,
    clientId,
    partitions: settings.kafkaPartitions,
    sessionTimeoutMs: settings.kafkaSessionTimeoutMs,
    replicationFactor: settings.kafkaReplicationFactor,
    minInsyncReplicas: settings.kafkaMinInsyncReplicas,
    retentionMs: { [TOPICS.raw]: Math.round(settings.rawRetentionDays * 86_400_000) },
    log: (level, message, extra) => log[level]({ ...extra, component: 'kafka' }, message),
  });
  const ready = transport.ready.bind(transport);
  // Ready means the registry answers too: without it no record can be encoded or decoded.
  return { ...transport, ready: async () => (await ready()) && (await registryReady(settings.schemaRegistryUrl!)), kind: 'kafka' };
}
