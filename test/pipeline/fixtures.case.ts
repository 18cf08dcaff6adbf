// The fixture walk of the Processing issue: every message of test/fixtures/messages, in order, one at a
// time, through every stage into Postgres; after each, the stored state is what expected.json says.
// Run on the in-process transport (test/integration/pipeline/memory-fixtures.test.ts) and on Kafka
// (test/integration/pipeline/kafka-fixtures.test.ts), each on the chained and the fully split shape.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { presentEvent } from '../../domain/event-presentation.js';
import type { Transport } from '../../stages/runtime/transport/transport.js';
import { expectedFixture, fixtureText } from '../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { importDemoData } from '../../support/reference-data.js';
import { startTestPipeline, type TestPipeline } from '../../support/pipeline.js';
import type { ChainStage } from '../../config/pipeline-split.js';

type Row = Record<string, unknown>;

async function one(pool: pg.Pool, sql: string, params: unknown[]): Promise<Row | undefined> {
  return (await pool.query(sql, params)).rows[0] as Row | undefined;
}
const countOf = async (pool: pg.Pool, sql: string, params: unknown[]) => Number((await one(pool, `select count(*) as n from ${sql}`, params))!.n);

/** `split`: the pipeline's shape (stages/shape.ts); default chained. */
export function fixtureWalk(name: string, makeTransport: () => Promise<Transport>, split: readonly ChainStage[] = []): void {
  const test = suite(`fixture walk: ${name}, ${split.length ? `split at ${split.join(', ')}` : 'chained'}`);
  let db: TestDatabase;
  let transport: Transport;
  let pipe: TestPipeline;

  test.before(async () => {
    db = await createTestDatabase('fixtures');
    await importDemoData(db.pool);
    transport = await makeTransport();
    pipe = await startTestPipeline(transport, db.pool, { split });
  });
  test.after(async () => {
    await pipe?.stop();
    await transport?.close();
    await db?.drop();
  });

  for (const expected of expectedFixture()) {
    const file = expected.file as string;
    test(file, async () => {
      await pipe.feed([{ name: file, body: fixtureText(file) }]);
      await pipe.drain();
      const pool = db.pool;
      const imei = expected.imei as string | undefined;
      const latest = imei ? await one(pool, `select * from device_records where "IMEINumber" = $1 order by "date" desc limit 1`, [imei]) : undefined;
      const latestEvent = imei ? await one(pool, `select * from event_records where "IMEINumber" = $1 order by "Event_Record_ID" desc limit 1`, [imei]) : undefined;

      if ('ActualOngoingFault' in expected) {
        assert.is(latest?.ActualOngoingFault, expected.ActualOngoingFault, 'ActualOngoingFault');
        assert.is(latest?.Ongoing_fault, expected.ActualOngoingFault, 'Ongoing_fault is stored as computed');
      }
      if ('records' in expected) assert.is(await countOf(pool, `device_records where "IMEINumber" = $1`, [imei]), expected.records, 'records');
      if ('events' in expected) assert.is(await countOf(pool, `event_records where "IMEINumber" = $1`, [imei]), expected.events, 'events');
      if ('events_total_for_device' in expected) assert.is(await countOf(pool, `event_records where "IMEINumber" = $1`, [imei]), expected.events_total_for_device, 'events of the device');
      if ('dm1_events' in expected) assert.is(await countOf(pool, `dm1_event_records where "IMEINumber" = $1`, [imei]), expected.dm1_events, 'DM1 events');
      if ('model' in expected) assert.is(latest?.model, expected.model, 'model');
      if ('duplicate' in expected) assert.is(await countOf(pool, `device_currents where "IMEINumber" = $1`, [imei]), 1, 'no second currents row');
      if ('shifted' in expected) {
        const s = expected.shifted as { EventID: number; EventTimestamp: string };
        const row = await one(pool, `select * from event_records where "IMEINumber" = $1 and "EventID" = $2`, [imei, s.EventID]);
        assert.is((row?.EventTimestamp as Date).toISOString(), new Date(s.EventTimestamp).toISOString(), 'shifted EventTimestamp');
      }
      if ('PermanentFaultResetCurrentThreshold' in expected || 'PostEventRef' in expected || 'PrefaultCurrent_api' in expected) {
        // Spec 3.4 transformations are the API's; here they are applied to the stored event as the API will.
        const events = (await pool.query(`select * from event_records where "IMEINumber" = $1 order by "Event_Record_ID"`, [imei])).rows;
        const presented = events.map((e) => presentEvent({ ...e, EventTimestamp: (e.EventTimestamp as Date).toISOString() }));
        assert.ok(latestEvent && presented.length > 0, 'an event is stored');
        if ('PermanentFaultResetCurrentThreshold' in expected) assert.is(presented.at(-1)!.PermanentFaultResetCurrentThreshold, expected.PermanentFaultResetCurrentThreshold, 'threshold');
        if ('PostEventRef' in expected) assert.ok(presented.some((e) => e.PostEventRef === expected.PostEventRef), 'PostEventRef');
        if ('PrefaultCurrent_api' in expected) assert.is(presented.at(-1)!.PrefaultCurrent, expected.PrefaultCurrent_api, 'PrefaultCurrent in the API');
        if ('FaultCurrent_api' in expected) assert.is(presented.at(-1)!.FaultCurrent, expected.FaultCurrent_api, 'FaultCurrent in the API');
      }
      if ('unregistered' in expected) {
        const u = expected.unregistered as string;
        assert.is(await countOf(pool, `device_records where "IMEINumber" = $1`, [u]), expected.records_stored, 'stored anyway');
        assert.is(await countOf(pool, `device_information where "IMEINumber" = $1`, [u]), 0, 'not registered');
        const rec = await one(pool, `select "CurrentName", "CurrentLat", "CurrentLong" from device_records where "IMEINumber" = $1`, [u]);
        assert.equal(rec, { CurrentName: null, CurrentLat: null, CurrentLong: null });
      }
      if ('rejected' in expected) {
        const row = await one(pool, `select * from rejected_messages where message_id = $1`, [file]);
        assert.ok(row, `${file} is in rejected_messages`);
        assert.is(row!.code, expected.rejected);
        assert.ok(String(row!.reason).length > 10, 'a reason is given');
        assert.is(row!.body, fixtureText(file), 'the raw body is kept unchanged');
      }
    });
  }

  test('the enrichment copies are the device name and place at check-in time', async () => {
    const row = await one(db.pool, `select "CurrentName", "CurrentLat", "CurrentLong" from device_records where "IMEINumber" = '861000000000100' order by "date" limit 1`, []);
    assert.equal(row, { CurrentName: 'North F7 Pole 41 Phase B', CurrentLat: 41.81, CurrentLong: -87.69 });
    const info = await one(db.pool, `select "LastCheckInTime" from device_information where "IMEINumber" = '861000000000100'`, []);
    assert.is((info!.LastCheckInTime as Date).toISOString(), '2026-11-20T15:10:00.000Z');
  });

  test.run();
}
