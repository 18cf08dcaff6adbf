// One device's day ranges (docs/decisions.md#one-devices-range-prepared): the first page of a device's events or load
// history over a day range, in the default order and unfiltered, must answer what the same page in another form
// (a filter every row passes) and a direct SQL of the range and the reach rule answer: in zones far from UTC, over a
// month's end, with events whose stored instant was moved back across it (spec 3.4: stored in one month, reported in
// the next), for a device moved into the organisation mid-history, as an admin and a group user; another
// organisation's admin gets 404. (Written for a prepared form of that page, which a hostile review then turned
// back: device-range-plans.test.ts.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatDisplayTime } from '../../../domain/display-time.js';
import { FAULT_SHIFT_MS } from '../../../domain/fault-shift.js';
import { addMonths, monthBounds, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { printHookErrors } from '../../helpers/hook-errors.js';
import { zonedCaller, type DemoCaller } from '../../helpers/zoned-caller.js';

const test = printHookErrors(suite('one device\'s day ranges (real Postgres)'));
const DAY = 86_400_000;
const NORTH = '8692000';
let db: TestDatabase;
let device = '';
/** The first instant of the newest generated month: a month's end the ranges straddle. */
let monthEndMs = 0;

type Body = { data: Record<string, unknown>[]; total?: number };
const client = (who: DemoCaller, tz: string) => zonedCaller<Body>(db.pool, who, tz, { now: () => monthEndMs + 40 * DAY });

test.before(async () => {
  db = await createTestDatabase('device_ranges');
  await importDemoData(db.pool);
  const now = monthOfMs(Date.now());
  const months = [addMonths(now, -3), addMonths(now, -2), addMonths(now, -1)];
  monthEndMs = monthBounds(months[2]!).fromMs;
  await registerDevices(db.pool, { prefix: NORTH, devices: 2, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await generateDeviceData(db.pool, { prefix: NORTH, devices: 2, count: 1200, months });
  device = (await db.pool.query<{ imei: string }>(`select d."IMEINumber" as imei from device_information d join group_device_links l on l."DeviceID" = d."DeviceID"
    where l."GroupID" = 'north-east' and d."IMEINumber" like $1 || '%' order by 1 limit 1`, [NORTH])).rows[0]!.imei;
  // Events stored in one month and reported in the next (a TFault moved back by the fault shift, spec 3.4), each
  // second of the shift's last minute around the month's end.
  await db.pool.query(`insert into event_records ("EventID", "EventTimestamp", "EventType", "PrefaultCurrent", "FaultCurrent", "RecoverCurrent",
      "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
    select 900000 + s, $2::timestamptz + s * interval '1 second' - $3::int * interval '1 millisecond', 'Fault <50', 40, 400, 10,
           $2::timestamptz + s * interval '1 second', $1, (select min("RecordID") from device_records where "IMEINumber" = $1), $2::timestamptz + s * interval '1 second'
      from generate_series(-20, 20) s`, [device, new Date(monthEndMs), FAULT_SHIFT_MS]);
  // Moved into the organisation mid-history: its earlier rows are not north's.
  await db.pool.query(`update device_information set "OrganizationSince" = (select percentile_disc(0.3) within group (order by "date") from device_records where "IMEINumber" = $1) where "IMEINumber" = $1`, [device]);
  await db.pool.query('analyze');
});
test.after(async () => { await db?.drop(); });

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

/** Ground truth: the device's rows of the caller's days [from, to] in `tz`, from its move on, newest first. */
async function expected(kind: 'events' | 'load-history', tz: string, from: string, to: string): Promise<string[]> {
  const inRange = (col: string) => `${col} >= ($2::date)::timestamp at time zone $1 and ${col} < ($3::date + 1)::timestamp at time zone $1`;
  const since = `(select "OrganizationSince" from device_information where "IMEINumber" = $4)`;
  const sql = kind === 'events'
    ? `select t || ':' || id as k from (
         select 'standard' as t, "Event_Record_ID" as id, "EventTimestamp" as at, "PacketTimestamp" as p from event_records where "IMEINumber" = $4
         union all select 'dm1', "Event_Record_ID", "EventTimestamp", "PacketTimestamp" from dm1_event_records where "IMEINumber" = $4) e
        where ${inRange('at')} and p >= ${since} order by at desc, t, id desc`
    : `select "PeakCurrent"::text as k, "PacketTimestamp" as at from device_currents
        where "IMEINumber" = $4 and ${inRange('"PacketTimestamp"')} and "PacketTimestamp" >= ${since} order by "PacketTimestamp" desc`;
  const { rows } = await db.pool.query<{ k: string; at?: Date }>(sql, [tz, from, to, device]);
  return rows.map((r) => (r.at ? `${r.k}@${formatDisplayTime(r.at.getTime(), tz)}` : r.k));
}

/** What identifies a row of the answer, as `expected` spells it (a load-history row by its peak and its instant in the caller's zone). */
const keys = (kind: 'events' | 'load-history', b: Body) => b.data.map((r) => kind === 'events' ? `${r.EventTable}:${r.Event_Record_ID}` : `${r.PeakCurrent}@${r.PacketTimestamp}`);

/** A filter every row passes: the same page in another form. */
const NO_OP = { events: { EventID: { gte: -1 } }, 'load-history': { PeakCurrent: { gte: -1 } } } as const;

const ranges = () => [
  [dayOf(monthEndMs - 5 * DAY), dayOf(monthEndMs + DAY)], // over the month's end
  [dayOf(monthEndMs - DAY), dayOf(monthEndMs - DAY)], // the month's last day
  [dayOf(monthEndMs), dayOf(monthEndMs)], // the next month's first day
  [dayOf(monthEndMs - 20 * DAY), dayOf(monthEndMs - 14 * DAY)], // a week inside a month
  [dayOf(monthEndMs - 70 * DAY), dayOf(monthEndMs + 10 * DAY)], // every month, from before the move
] as const;

test('a ranged first page answers what another form of it and a direct SQL answer', async () => {
  for (const tz of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'UTC']) {
    for (const who of ['admin', 'group user'] as const) {
      const get = await client(who, tz);
      for (const kind of ['events', 'load-history'] as const) {
        for (const [from, to] of ranges()) {
          const want = await expected(kind, tz, from, to);
          for (const limit of [7, 500]) {
            const path = `/device-records/device-information/${kind}/${device}?from=${from}&to=${to}&limit=${limit}`;
            const label = `${who} ${tz} ${kind} ${from}-${to} limit ${limit}`;
            const first = await get(path);
            assert.is(first.status, 200, `${label}: ${JSON.stringify(first.body).slice(0, 300)}`);
            assert.equal(keys(kind, first.body), want.slice(0, limit), `${label}: first page`);
            const spelled = await get(`${path}&filterBy=${encodeURIComponent(JSON.stringify(NO_OP[kind]))}`);
            assert.equal(keys(kind, spelled.body), want.slice(0, limit), `${label}: filtered page`);
            assert.is(first.body.total, want.length > limit ? spelled.body.total : want.length, `${label}: total`);
            // The next page (planned per request, range spelled in) goes on where the first stopped.
            if (want.length > limit) assert.equal(keys(kind, (await get(`${path}&page=1`)).body), want.slice(limit, 2 * limit), `${label}: page 1`);
          }
        }
      }
    }
  }
  const outsider = await client('south admin', 'UTC');
  for (const kind of ['events', 'load-history']) {
    assert.is((await outsider(`/device-records/device-information/${kind}/${device}?from=${dayOf(monthEndMs - 5 * DAY)}&to=${dayOf(monthEndMs)}`)).status, 404, `${kind}: another organisation`);
  }
});

test.run();
