// Running the pipeline in a test: every stage on a transport, a bridge to feed queue messages in, and
// `drain()` that returns once everything fed has gone through every stage.
import type pg from 'pg';
import type { ModelMap } from '../domain/model-replacement.js';
import { loadModelMap, loadSettings } from '../config/settings.js';
import { createBridge, type ReceivedMessage } from '../stages/bridge/index.js';
import { startPipeline, type Pipeline } from '../stages/pipeline.js';
import type { ChainStage } from '../config/pipeline-split.js';
import { localAvroCodec } from '../stages/runtime/codec.js';
import { memoryTransport } from '../stages/runtime/transport/memory.js';
import { fixtureNames, fixtureText } from './checkins.js';
import type { BatchControls, Transport } from '../stages/runtime/transport/transport.js';
import { waitFor } from './wait-for.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { resetPipelineTopics, testKafkaTransport } from './kafka.js';
import { importDemoData, testKeyring } from './reference-data.js';
import { importReferenceData } from '../reference-data/index.js';

/** The controls of a batch a test or bench hands a stage itself, outside a consumer: it runs, with no group to keep. */
export const outsideConsumer: BatchControls = { isRunning: () => true, heartbeat: async () => {} };

export interface TestPipeline {
  pipeline: Pipeline;
  feed(messages: { name: string; body: string }[]): Promise<void>;
  drain(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface TestPipelineOptions {
  /** Overrides of the shipped rules (a test of a rule change). */
  modelMap?: ModelMap;
  lowCurrentA?: number;
  /** The shape (stages/shape.ts); default chained. */
  split?: readonly ChainStage[];
}

export async function startTestPipeline(transport: Transport, pool: pg.Pool, options: TestPipelineOptions = {}): Promise<TestPipeline> {
  const settings = loadSettings({});
  const pipeline = await startPipeline({
    transport, pool, modelMap: options.modelMap ?? loadModelMap(settings.modelMapFile), lowCurrentA: options.lowCurrentA ?? settings.lowCurrentA, split: options.split ?? [],
  });
  const bridge = createBridge({ producer: transport.producer() });
  return {
    pipeline,
    async feed(messages) {
      const batch: ReceivedMessage[] = messages.map((m) => ({ messageId: m.name, body: m.body, source: 'spool' }));
      await bridge.forward(batch, async () => {});
    },
    // Upstream to downstream: a segment commits only after sending its output, so once every segment in
    // pipeline order shows no lag, nothing is left in flight.
    async drain(timeoutMs = 30_000) {
      await waitFor('the pipeline to drain', async () => {
        for (const subscription of pipeline.subscriptions.values()) {
          const lag = await subscription.lag();
          if (lag.some((p) => BigInt(p.end) > BigInt(p.next))) return false;
        }
        return true;
      }, { timeoutMs, intervalMs: 25 });
    },
    stop: () => pipeline.stop(),
  };
}

export interface KafkaRig {
  db: TestDatabase;
  transport: Transport;
  pipe: TestPipeline;
  stop(): Promise<void>;
}

/** Fresh pipeline topics, a fresh database with the fixture reference data, the pipeline on Kafka. */
export async function startKafkaRig(prefix: string, options: TestPipelineOptions = {}): Promise<KafkaRig> {
  await resetPipelineTopics(['dnp3.north', 'dnp3.south']);
  const db = await createTestDatabase(prefix);
  await importDemoData(db.pool);
  const transport = await testKafkaTransport();
  const rig: KafkaRig = {
    db, transport, pipe: await startTestPipeline(transport, db.pool, options),
    async stop() {
      await rig.pipe.stop();
      await transport.close();
      await db.drop();
    },
  };
  return rig;
}

/** Every fixture message (test/fixtures), one at a time and drained after each, through a chained in-process pipeline into `pool`. */
export async function walkFixturesInProcess(pool: pg.Pool): Promise<void> {
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, pool);
  try {
    for (const name of fixtureNames()) {
      await pipe.feed([{ name, body: fixtureText(name) }]);
      await pipe.drain();
    }
  } finally {
    await pipe.stop();
    await transport.close();
  }
}

/** A step of `runOneByOne`: a queue message fed alone, or 'restart' (the pipeline stopped and started again: its stages are assigned anew). */
export type OneByOneStep = { name: string; body: string } | 'restart';

/**
 * A fresh database with `referenceData`, the chained pipeline in process on one partition, and each step alone,
 * drained before the next (so every message is its own batch); `read` reads the result before the database goes.
 */
export async function runOneByOne<T>(prefix: string, referenceData: unknown, steps: readonly OneByOneStep[], read: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const db = await createTestDatabase(prefix);
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 1 });
  try {
    await importReferenceData(db.pool, referenceData, { keyring: testKeyring() });
    let pipe = await startTestPipeline(transport, db.pool);
    for (const step of steps) {
      if (step === 'restart') {
        await pipe.stop();
        pipe = await startTestPipeline(transport, db.pool);
        continue;
      }
      await pipe.feed([step]);
      await pipe.drain();
    }
    await pipe.stop();
    return await read(db.pool);
  } finally {
    await transport.close();
    await db.drop();
  }
}

/**
 * What the pipeline decided, as JSON values to compare between two runs of the same messages: each record's
 * fault columns by date, the model-change alerts and the outbox (the notifications owed).
 */
export async function judgedOutcome(pool: pg.Pool): Promise<Record<string, unknown[]>> {
  const q = async (sql: string) => (await pool.query(sql)).rows.map((r) => JSON.parse(JSON.stringify(r)) as unknown);
  return {
    records: await q(`select "date", "ActualOngoingFault", "ReportedOngoingFault" from device_records order by "date"`),
    alerts: await q(`select "oldModel", "newModel", "at" from model_change_alerts order by "at"`),
    outbox: await q(`select kind, dedup_key, payload from outbox order by dedup_key`),
  };
}
