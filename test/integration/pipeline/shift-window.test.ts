// A Fault <50 followed within 6 minutes by a trigger that comes in a later check-in is moved (spec 3.4;
// domain/fault-shift.ts), whatever the check-ins in between reported. fault-compute holds the device's recent
// shift candidates (EVENTS_KEPT); rebuilt from Postgres they are the shift types only (state.ts eventsSql),
// so the answer must not depend on whether the cache was rebuilt in between (a restart, or any join of the
// group: stages/runtime/transport/kafka/membership.ts). Chained in-process pipeline, real Postgres.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { runOneByOne } from '../../../support/pipeline.js';
import { createFleet, type FleetMessage } from '../../../simulator/index.js';
import { EVENTS_KEPT } from '../../../stages/fault-compute/state.js';

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

const fed = (m: FleetMessage) => ({ name: `m${m.sequence}`, body: JSON.stringify(m.message) });

const run = (restartBeforeC: boolean) => runOneByOne('shiftwin', referenceData, [fed(a), fed(b), ...(restartBeforeC ? ['restart' as const] : []), fed(c)], faultEvents);

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

// The same pair when its TFault comes in a check-in that arrives late: after one later check-in, and after
// enough later ones that their shift candidates (SOTFs long after the pair) outnumber EVENTS_KEPT.
const late = createFleet({ devices: 1, seed: 6, eventChance: 0, intervalMs: 15 * 60_000 });
const [la, lc, ...after] = Array.from({ length: 5 }, () => late.next()) as [FleetMessage, FleetMessage, ...FleetMessage[]];
la.message.events = [event(100, at(la, -60_000), 'Fault <50')];
lc.message.events = [event(300, at(la, 3 * 60_000), 'TFault')];
after.forEach((m, n) => { m.message.events = Array.from({ length: 12 }, (_, i) => event(400 + 20 * n + i, at(m, -5 * 60_000 + i * 1000), 'SOTF')); });

const runOrder = async (order: FleetMessage[]) => (await runOneByOne('shiftlate', { ...referenceData, devices: [{ ...referenceData.devices[0]!, IMEINumber: la.imei }] }, order.map(fed), faultEvents))
  .filter((e) => (e as { EventType: string }).EventType !== 'SOTF');

test('the TFault of a very late check-in moves its Fault <50 as it does one check-in late', async () => {
  const oneLate = await runOrder([la, after[0]!, lc, ...after.slice(1)]);
  assert.ok(after.length * 12 > EVENTS_KEPT, 'more shift candidates arrive first than are held');
  const veryLate = await runOrder([la, ...after, lc]);
  assert.equal((oneLate as { TimestampShifted: boolean }[])[0]?.TimestampShifted, true, 'one check-in late: moved');
  assert.equal(veryLate, oneLate, 'very late: the same');
});

test.run();
