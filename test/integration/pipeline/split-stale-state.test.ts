// In a split shape (PIPELINE_SPLIT=persist) fault-compute's records reach Postgres only when persist, another
// segment, has read them from fi.computed.v1. What fault-compute reads from Postgres (its cache after an
// assignment, loadFaultState; a very late check-in's previous record, recordBefore) would then miss the records
// it computed that persist has not stored yet, and a check-in would be judged against an older record than the
// chained pipeline judges it against. fault-compute therefore waits for persist first
// (docs/pipeline.md#state-across-a-cut). Each case compares with the chained, in-order answer.
// In-process transport, real Postgres. persist lags: its segment starts only once fault-compute waits for it
// (before the wait existed: once everything upstream was done), or it is stopped and started again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import { startPipeline, type Pipeline, type StageName } from '../../../stages/pipeline.js';
import { createBridge } from '../../../stages/bridge/index.js';
import { loadModelMap, loadSettings } from '../../../config/settings.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { createFleet, type FleetMessage } from '../../../simulator/index.js';
import { createTestDatabase } from '../../../support/database.js';
import { waitFor } from '../../../support/wait-for.js';
import { judgedOutcome } from '../../../support/pipeline.js';
import { RECORDS_KEPT } from '../../../stages/fault-compute/state.js';
import { testKeyring } from '../../../support/reference-data.js';
import { registry } from '../../../config/metrics.js';

const COUNT = RECORDS_KEPT + 8;
const LATE = 3;
const fleet = createFleet({ devices: 1, seed: 11, eventChance: 0, intervalMs: 15 * 60_000 });
const messages: FleetMessage[] = Array.from({ length: COUNT }, () => fleet.next());
// As in late-checkins.test.ts: against its previous record (almost no current) the check-in at LATE reports a
// permanent fault that spec 3.2 row 1 makes 11, and a model change; against none it stays 4, with no alert.
messages[LATE - 1]!.message.device_data.AverageCurrent1m = 0.2;
const judged = messages[LATE]!.message;
judged.device_data.Ongoing_fault = 4;
judged.device_data.model = 'FCI-2000';
const imei = messages[0]!.imei;
const judgedDate = new Date(String(judged.device_data.date)).toISOString();

const referenceData = {
  organizations: [{ OrganizationID: 'split', name: 'Split Utility', MaskFaultDetails: false, timezone: 'UTC' }],
  powerLines: [], groups: [], users: [],
  devices: [{ IMEINumber: imei, OrganizationID: 'split', Real_Name: 'Pole 1', Lat: 41, Long: -87 }],
  integrations: [{ id: 'split-oms', OrganizationID: 'split', kind: 'multispeak', channel: 'C', endpoint: 'http://127.0.0.1:9/soap', operation: 'SCADAAnalogChangedNotificationByPointID', version: '4.1', userId: 'u', password: 'p-secret-1' }],
};

const UPSTREAM: StageName[] = ['enrich', 'dedup', 'fault-compute'];
const DOWNSTREAM: StageName[] = ['persist', 'notify', 'rejected'];

async function segments(transport: Transport, pool: pg.Pool, split: 'persist' | null, stages?: StageName[]): Promise<Pipeline> {
  const settings = loadSettings({});
  return startPipeline({
    transport, pool, modelMap: loadModelMap(settings.modelMapFile), lowCurrentA: settings.lowCurrentA,
    split: split ? [split] : [], ...(stages ? { stages } : {}),
  });
}

/** Whether every record fed has gone through the segments (each committed its input to the end). */
async function drained(pipeline: Pipeline): Promise<boolean> {
  for (const s of pipeline.subscriptions.values()) if ((await s.lag()).some((p) => BigInt(p.end) > BigInt(p.next))) return false;
  return true;
}

async function drain(pipeline: Pipeline): Promise<void> {
  await waitFor('the segments to drain', () => drained(pipeline), { timeoutMs: 30_000, intervalMs: 25 });
}

/** Partitions fault-compute holds back until persist stored what it computed (0 where nothing waits). */
async function waitingForPersist(): Promise<number> {
  const values = (await registry.getSingleMetric('faultline_stage_waiting_partitions')?.get())?.values ?? [];
  return values.filter((v) => v.labels.stage === 'fault-compute').reduce((sum, v) => sum + v.value, 0);
}

interface Rig {
  pool: pg.Pool;
  transport: Transport;
  feed(step: FleetMessage): Promise<void>;
}

async function withRig<T>(body: (rig: Rig) => Promise<T>): Promise<T> {
  const db = await createTestDatabase('splitstale');
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 1 });
  const bridge = createBridge({ producer: transport.producer() });
  try {
    await importReferenceData(db.pool, referenceData, { keyring: testKeyring() });
    const feed = async (step: FleetMessage) => { await bridge.forward([{ messageId: `m${step.sequence}`, body: JSON.stringify(step.message), source: 'spool' }], async () => {}); };
    return await body({ pool: db.pool, transport, feed });
  } finally {
    await transport.close();
    await db.drop();
  }
}

/**
 * `steps`: the messages to feed one a batch, or 'restart' (the upstream segment stops and starts again: a new
 * assignment). Split: persist's segment is not running until fault-compute waits for it (then it starts and
 * catches up), or until the last step; chained: one segment throughout.
 */
async function run(steps: (FleetMessage | 'restart')[], split: boolean): Promise<Record<string, unknown[]>> {
  return withRig(async ({ pool, transport, feed }) => {
    const upstreamOf = () => segments(transport, pool, split ? 'persist' : null, split ? UPSTREAM : undefined);
    let upstream = await upstreamOf();
    let downstream: Pipeline | null = null;
    for (const step of steps) {
      if (step === 'restart') {
        await upstream.stop();
        upstream = await upstreamOf();
        continue;
      }
      await feed(step);
      if (split && !downstream) {
        const waits = await waitFor('the upstream segment to drain or to wait for persist', async () => ((await waitingForPersist()) > 0 ? 'waits' : (await drained(upstream)) && 'drained'));
        if (waits === 'waits') downstream = await segments(transport, pool, 'persist', DOWNSTREAM);
      }
      await drain(upstream);
    }
    if (split) {
      downstream ??= await segments(transport, pool, 'persist', DOWNSTREAM);
      await drain(downstream);
      await downstream.stop();
    }
    await upstream.stop();
    return await judgedOutcome(pool);
  });
}

const judgedRecord = (result: Record<string, unknown[]>) => (result.records as { date: string; ActualOngoingFault: number }[]).find((r) => r.date === judgedDate);

test('split, the upstream segment reassigned while persist lags: the next check-in is judged against its previous record', async () => {
  const upTo = messages.slice(0, LATE + 1);
  const chained = await run(upTo, false);
  assert.is(judgedRecord(chained)?.ActualOngoingFault, 11, 'chained: spec 3.2 row 1 against the previous record');
  const split = await run([...upTo.slice(0, LATE), 'restart', upTo[LATE]!], true);
  assert.equal(judgedRecord(split), judgedRecord(chained), 'split, reassigned in between: the same');
  for (const table of Object.keys(chained)) assert.equal(split[table], chained[table], table);
});

test(`split, a check-in ${COUNT - LATE - 1} places late while persist lags: the answer it gets one place late`, async () => {
  const rest = messages.filter((_, i) => i !== LATE);
  const delayed = (places: number) => [...rest.slice(0, LATE + places), messages[LATE]!, ...rest.slice(LATE + places)];
  const chained = await run(delayed(1), false);
  assert.is(judgedRecord(chained)?.ActualOngoingFault, 11, 'chained, one place late: spec 3.2 row 1 against the previous record');
  const split = await run(delayed(COUNT - LATE - 1), true);
  assert.equal(judgedRecord(split), judgedRecord(chained), 'split, very late: the same');
  for (const table of Object.keys(chained)) assert.equal(split[table], chained[table], table);
});

test('split, persist down while the upstream segment is reassigned: fault-compute waits, a stop ends the wait, and once persist is back the check-in gets the chained answer', async () => {
  const upTo = messages.slice(0, LATE + 1);
  const chained = await run(upTo, false);
  const split = await withRig(async ({ pool, transport, feed }) => {
    const upstreamOf = () => segments(transport, pool, 'persist', UPSTREAM);
    const downstreamOf = () => segments(transport, pool, 'persist', DOWNSTREAM);
    let downstream = await downstreamOf();
    let upstream = await upstreamOf();
    await feed(upTo[0]!);
    await drain(upstream);
    await drain(downstream);
    // persist goes down (its group keeps its committed offset) while fault-compute computes on.
    await downstream.stop();
    for (const m of upTo.slice(1, LATE)) {
      await feed(m);
      await drain(upstream);
    }
    await upstream.stop();
    upstream = await upstreamOf();
    await feed(upTo[LATE]!);
    await waitFor('fault-compute to wait for persist after its assignment', async () => (await waitingForPersist()) > 0);
    // Stopped while it waits (its partitions revoked): the stop ends the wait, and the batch is not committed.
    await upstream.stop();
    assert.is(await waitingForPersist(), 0, 'nothing waits once the segment stopped');
    upstream = await upstreamOf();
    await waitFor('fault-compute to wait for persist again', async () => (await waitingForPersist()) > 0);
    downstream = await downstreamOf();
    await drain(upstream);
    await drain(downstream);
    await downstream.stop();
    await upstream.stop();
    return judgedOutcome(pool);
  });
  assert.is(judgedRecord(split)?.ActualOngoingFault, 11, 'persist back: spec 3.2 row 1 against the previous record');
  for (const table of Object.keys(chained)) assert.equal(split[table], chained[table], table);
});

test.run();
