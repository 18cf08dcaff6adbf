// Test isolation on the shared broker: pipeline suites delete the pipeline topics and consumer groups
// before they start, so records left by an earlier (crashed) run never reach this run's database.
import { Kafka, logLevel } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { infraEnv } from '../infra/endpoints.js';
import { TOPICS } from '../schemas/avro/topics.js';
import { createRegistry } from '../schemas/registry.js';
import { registryCodec } from '../stages/runtime/codec.js';
import { kafkaTransport } from '../stages/runtime/transport/kafka.js';
import { kafkaNames } from '../stages/runtime/transport/names.js';
import type { Transport } from '../stages/runtime/transport/transport.js';
import { waitFor } from './wait-for.js';

export const brokers = () => (process.env.KAFKA_BROKERS ?? infraEnv().KAFKA_BROKERS!).split(',');

export async function resetPipelineTopics(extraTopics: string[] = []): Promise<void> {
  // A cluster started a moment ago may still be electing leaders for the topics it kept from a run before:
  // a delete refused then is tried again, for up to a minute, and the last refusal is in the error.
  await waitFor('the pipeline topics and consumer groups deleted', async () => { await resetOnce(extraTopics); return true; }, { timeoutMs: 60_000, intervalMs: 2_000 });
}

async function resetOnce(extraTopics: string[]): Promise<void> {
  const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith('faultline'));
    if (groups.length) await admin.deleteGroups(groups).catch(() => {});
    const existing = new Set(await admin.listTopics());
    const doomed = [...Object.values(TOPICS), ...extraTopics].filter((t) => existing.has(t));
    if (doomed.length) await admin.deleteTopics({ topics: doomed, timeout: 30_000 });
    // Deletion completes asynchronously; wait until the broker no longer lists them.
    for (let i = 0; i < 100; i++) {
      const left = new Set(await admin.listTopics());
      if (!doomed.some((t) => left.has(t))) return;
      await sleep(100);
    }
    throw new Error(`topics still present after delete: ${doomed.join(', ')}`);
  } finally {
    await admin.disconnect();
  }
}

/** The consumer groups the broker knows now. */
export async function listGroups(): Promise<string[]> {
  const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return (await admin.listGroups()).groups.map((g) => g.groupId);
  } finally {
    await admin.disconnect();
  }
}

/** A Kafka transport on the infra/ broker and registry, as the pipeline suites use it. */
export async function testKafkaTransport(partitions = 3, namespace = ''): Promise<Transport> {
  const registryUrl = process.env.SCHEMA_REGISTRY_URL ?? infraEnv().SCHEMA_REGISTRY_URL!;
  const names = kafkaNames(namespace);
  return kafkaTransport({ brokers: brokers(), codec: await registryCodec(createRegistry(registryUrl), names), names, partitions, sessionTimeoutMs: 10_000 });
}
