// A Fault <50 followed within 6 minutes by a trigger that comes in a later check-in is moved (spec 3.4;
// domain/fault-shift.ts), whatever the check-ins in between reported. fault-compute holds the device's recent
// shift candidates (EVENTS_KEPT); rebuilt from Postgres they are the shift types only (state.ts eventsSql),
// so the answer must not depend on whether the cache was rebuilt in between (a restart, or any join of the
// group: stages/runtime/transport/kafka/membership.ts). Chained in-process pipeline, real Postgres.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { startTestPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { createFleet, type FleetMessage } from '../../../simulator/index.js';
import { createTestDatabase } from '../../../support/database.js';
import { EVENTS_KEPT } from '../../../stages/fault-compute/state.js';
import { testKeyring } from '../../../support/reference-data.js';

const fleet = createFleet({ devices: 1, seed: 5, eventChance: 0, intervalMs: 2 * 60_000 });
const [a, b, c] = [fleet.next(), fleet.next(), fleet.next()] as [FleetMessage, FleetMessage, FleetMessage];
const imei = a.imei;
const at = (m: FleetMessage, offsetMs: number) => new Date(new Date(String(m.message.device_data.date)).getTime() + offsetMs).toISOString().replace('.000Z', 'Z');
const event = (EventID: number, EventTimestamp: string, EventType: string) => ({ EventID, EventTimestamp, EventType, PrefaultCurrent: 40, FaultCurrent: 45, RecoverCurrent: 0 });
// A: the Fault <50. B: more Overcurrent events (no shift role) than fault-compute holds. C: a TFault 4 minutes
// after the Fault <50.
a.message.events = [event(100, at(a, -30_000), 'Fault <50')];
b.message.events = Array.from({ length: EVENTS_KEPT }, (_, i) => event(200 + i, at(b, -60_000 + i * 1000), 'Overcurrent'));
c.message.events = [event(300, at(a, 4 * 60_000 - 30_000), 'TFault')];

const referenceData = {
  organizations: [{ OrganizationID: 'shift', name: 'Shift Utility', MaskFaultDetails: false, timezone: 'UTC' }],
  powerLines: [], groups: [], users: [],
  devices: [{ IMEINumber: imei, OrganizationID: 'shift', Real_Name: 'Pole 1', Lat: 41, Long: -87 }],
  integrations: [],
};

async function run(restartBeforeC: boolean): Promise<unknown[]> {
  const db = await createTestDatabase('shiftwin');
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 1 });
  try {
    await importReferenceData(db.pool, referenceData, { keyring: testKeyring() });
    let pipe: TestPipeline = await startTestPipeline(transport, db.pool);
    for (const m of [a, b, c]) {
      if (m === c && restartBeforeC) {
        await pipe.stop();
        pipe = await startTestPipeline(transport, db.pool);
      }
      await pipe.feed([{ name: `m${m.sequence}`, body: JSON.stringify(m.message) }]);
      await pipe.drain();
    }
    await pipe.stop();
    return await faultEvents(db.pool);
  } finally {
    await transport.close();
    await db.drop();
  }
}

async function faultEvents(pool: pg.Pool): Promise<unknown[]> {
  const { rows } = await pool.query(`select "EventID", "EventType", "EventTimestamp", "TimestampShifted" from event_records
     where "EventType" <> 'Overcurrent' order by "EventID"`);
  return rows.map((r) => JSON.parse(JSON.stringify(r)) as unknown);
}

test('a Fault <50 followed by a TFault two check-ins later is moved, with or without a restart in between', async () => {
  const rebuilt = await run(true);
  const kept = await run(false);
  assert.equal((rebuilt as { TimestampShifted: boolean }[])[0]?.TimestampShifted, true, 'rebuilt from Postgres: moved');
  assert.equal(kept, rebuilt, 'the cache kept: the same');
});

test.run();
