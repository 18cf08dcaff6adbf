// A check-in resent with an event the first copy lacked goes on past dedup (the event is attached to the stored
// record) but stores no second record: the first copy's stays (persist: on conflict do nothing). fault-compute
// must then hold the stored record as the device's record of that date, so the next check-in's previous
// record is the same whether or not its cache was rebuilt from Postgres in between (a restart, or any join of
// the group: stages/runtime/transport/kafka/membership.ts). Chained in-process pipeline, real Postgres.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { runOneByOne } from '../../../support/pipeline.js';
import { createFleet, type FleetMessage } from '../../../simulator/index.js';

const fleet = createFleet({ devices: 1, seed: 9, eventChance: 0, intervalMs: 15 * 60_000 });
const [first, next] = [fleet.next(), fleet.next()] as [FleetMessage, FleetMessage];
const imei = first.imei;
const at = (m: FleetMessage, offsetMs: number) => new Date(new Date(String(m.message.device_data.date)).getTime() + offsetMs).toISOString().replace('.000Z', 'Z');
const event = (EventID: number, EventTimestamp: string, EventType: string) => ({ EventID, EventTimestamp, EventType, PrefaultCurrent: 40, FaultCurrent: 450, RecoverCurrent: 0 });
// The first copy: reports NONE with an Overcurrent event, stored as OVER_CURRENT (6). The resend: the same
// check-in with a later Current Reset as well, which would make it CURRENT_RESET (10); it stores no record. The
// next check-in: NONE with a Current Reset, 10: a status change from the stored 6, so a status notification.
first.message.device_data.Ongoing_fault = 0;
first.message.events = [event(10, at(first, -60_000), 'Overcurrent')];
const resent = structuredClone(first.message);
resent.events = [...first.message.events, event(11, at(first, -30_000), 'Current Reset')];
next.message.device_data.Ongoing_fault = 0;
next.message.events = [event(12, at(next, -30_000), 'Current Reset')];

const referenceData = {
  organizations: [{ OrganizationID: 'resend', name: 'Resend Utility', MaskFaultDetails: false, timezone: 'UTC' }],
  powerLines: [], groups: [], users: [],
  devices: [{ IMEINumber: imei, OrganizationID: 'resend', Real_Name: 'Pole 1', Lat: 41, Long: -87 }],
  integrations: [{ id: 'resend-oms', OrganizationID: 'resend', kind: 'multispeak', channel: 'C', endpoint: 'http://127.0.0.1:9/soap', operation: 'SCADAAnalogChangedNotificationByPointID', version: '4.1', userId: 'u', password: 'p-secret-1' }],
};

async function run(restartBeforeNext: boolean): Promise<Stored> {
  const step = (name: string, body: unknown) => ({ name, body: JSON.stringify(body) });
  return runOneByOne('resend', referenceData, [step('first', first.message), step('resent', resent), ...(restartBeforeNext ? ['restart' as const] : []), step('next', next.message)], stored);
}

interface Stored { records: unknown[]; events: unknown[]; status: unknown[] }

async function stored(pool: pg.Pool): Promise<Stored> {
  const q = async (sql: string) => (await pool.query(sql)).rows.map((r) => JSON.parse(JSON.stringify(r)) as unknown);
  return {
    records: await q(`select "date", "ActualOngoingFault" from device_records order by "date"`),
    events: await q(`select "EventID", "EventType" from event_records order by "EventID"`),
    status: await q(`select dedup_key, payload->>'previousActualOngoingFault' as previous from outbox where kind = 'status' order by dedup_key`),
  };
}

test('after a resend with a new event, the next check-in meets the stored record of that date, restart or not', async () => {
  const rebuilt = await run(true);
  assert.equal((rebuilt.records as { ActualOngoingFault: number }[]).map((r) => r.ActualOngoingFault), [6, 10], 'the first copy stored as 6, the next as 10');
  assert.is(rebuilt.events.length, 3, 'the resend\'s new event was attached');
  assert.is(rebuilt.status.length, 2, 'both status changes notified');
  const kept = await run(false);
  assert.equal(kept, rebuilt, 'the cache kept: the same, status notifications included');
});

test.run();
