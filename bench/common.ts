// Shared set-up of the comparison scenarios (baseline, ceiling, end-to-end): the same generated data
// (check-ins with 3 events and 24 hourly averages), a fresh migrated database with the fleet registered,
// and a fresh SQS queue on the infra/ ElasticMQ pre-loaded with the messages.
import { CreateQueueCommand, DeleteQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { infraEnv } from '../infra/endpoints.js';
import { importReferenceData } from '../reference-data/index.js';
import { Keyring } from '../secrets/keyring.js';
import { createFleet, sqsSink, type Fleet, type SimulatedMessage } from '../simulator/index.js';
import { createSqsClient } from '../stages/bridge/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import type { Stats } from '../support/stats.js';

export interface ScenarioOptions { messages: number; devices: number; runs: number }
export interface ScenarioResult {
  scenario: string;
  messages: number;
  devices: number;
  /** Check-ins per second over the runs. */
  throughput: Stats;
  /** Latency from SQS send to the row being visible, ms (end-to-end only). */
  latency?: { p50: Stats; p95: Stats; p99: Stats };
  /** Stored check-ins per second, one point per second, of the median run. */
  timeline: number[];
  /** Median latency (ms) of the check-ins stored in each second of the median run (NaN: none stored). */
  latencyTimeline?: number[];
  note: string;
  /** faultline's CPU time per stored check-in, microseconds (its processes only, not the load generator). */
  cpuMicrosPerCheckIn?: Stats;
  /** CPU seconds per wall second of each process during the median run, and the busiest one. */
  cpuPerSecond?: Record<string, number>;
  bottleneck?: string;
}

export function scenarioArgs(defaults: ScenarioOptions): ScenarioOptions {
  const { values } = parseArgs({ options: { messages: { type: 'string' }, devices: { type: 'string' }, runs: { type: 'string' } }, strict: false });
  return {
    messages: Number(values.messages ?? defaults.messages),
    devices: Number(values.devices ?? defaults.devices),
    runs: Number(values.runs ?? defaults.runs),
  };
}


export const progress = (line: string): void => { process.stderr.write(`${line}\n`); };

/** The same messages for every scenario and run: same seed, same start time. */
export function benchFleet(devices: number): Fleet {
  return createFleet({ devices, seed: 1, eventsPerCheckIn: 3, intervalMs: 60_000, startTime: Date.UTC(2026, 10, 20) });
}

export function generateMessages(fleet: Fleet, count: number): { imei: string; message: SimulatedMessage; body: string }[] {
  return Array.from({ length: count }, () => {
    const { imei, message } = fleet.next();
    return { imei, message, body: JSON.stringify(message) };
  });
}

/** The bench organisation and the fleet's devices, as an import file holds them. */
export function benchReferenceData(fleet: Fleet) {
  return {
    organizations: [{ OrganizationID: 'bench', name: 'Bench Utility' }], powerLines: [], groups: [], users: [], integrations: [],
    devices: fleet.imeis.map((imei, i) => ({ IMEINumber: imei, OrganizationID: 'bench', Real_Name: `Bench ${i}`, Lat: 41, Long: -87, dnp3QueueAddress: 'dnp3.bench' })),
  };
}

/** A fresh database with the fleet's devices registered (device information, organization). */
export async function benchDatabase(prefix: string, fleet: Fleet, poolMax = 16): Promise<TestDatabase> {
  const db = await createTestDatabase(prefix, { poolMax });
  await importReferenceData(db.pool, benchReferenceData(fleet), { keyring: new Keyring([{ id: 'bench', key: Buffer.alloc(32, 1) }]) });
  return db;
}

export interface BenchQueue { url: string; client: SQSClient; delete(): Promise<void> }

/** A fresh queue on the infra/ SQS server (loopback only). */
export async function benchQueue(prefix: string): Promise<BenchQueue> {
  const endpoint = infraEnv().SQS_ENDPOINT!;
  const client = createSqsClient({ queueUrl: infraEnv().SQS_QUEUE_URL!, endpoint });
  const out = await client.send(new CreateQueueCommand({ QueueName: `${prefix}-${randomUUID().slice(0, 8)}`, Attributes: { VisibilityTimeout: '60' } }));
  const url = out.QueueUrl!;
  return {
    url, client,
    async delete() {
      await client.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => {});
      client.destroy();
    },
  };
}

/**
 * Sends the bodies, 10 per SendMessageBatch, `concurrency` batches in flight. `onSent(index, at)` gets the
 * send time (ms since the epoch, when the batch was accepted) of each message. With `ratePerSecond`, batch
 * k is not sent before start + 10k / rate: a steady offered load instead of everything at once.
 */
export async function preload(queue: BenchQueue, bodies: readonly string[], { concurrency = 8, onSent, ratePerSecond }: { concurrency?: number; onSent?: (index: number, at: number) => void; ratePerSecond?: number } = {}): Promise<number> {
  const sink = sqsSink({ queueUrl: queue.url, client: queue.client });
  const started = performance.now();
  let next = 0;
  let lastPrint = started;
  const worker = async () => {
    while (next < bodies.length) {
      const from = next;
      next += 10;
      if (ratePerSecond) {
        const due = started + (from / ratePerSecond) * 1000;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
      }
      const slice = bodies.slice(from, from + 10);
      await sink.write(slice.map((body, i) => ({ name: String(from + i), body })));
      const at = Date.now();
      slice.forEach((_, i) => onSent?.(from + i, at));
      if (performance.now() - lastPrint > 1000) {
        progress(`  preload: ${Math.min(next, bodies.length)}/${bodies.length} sent to SQS`);
        lastPrint = performance.now();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await sink.close();
  return bodies.length / ((performance.now() - started) / 1000);
}

export async function countRows(pool: pg.Pool): Promise<number> {
  return Number((await pool.query('select count(*) from device_records')).rows[0].count);
}
