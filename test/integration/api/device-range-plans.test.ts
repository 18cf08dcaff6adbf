// One device's day range reads its page, not the device's months (docs/decisions.md#one-devices-range-prepared): the
// first page of a device's events or load history over a day range, in the default order and unfiltered, as the app
// sends it and plans it (the pool it went to: db/pool.ts), must touch no more buffers than BOUND allows beside the
// same statement planned with its values (it walks the device's index to the page), and answer what the same page
// with a filter every row passes answers. A fleet of 2,000 devices (a generic plan's estimate
// of one device's rows is small) and three busy devices whose 20,000 rows sit in October outside the ranges asked.
// A hostile review found a prepared form of that page (placeholders for the range, the months holding it spelled
// in) reading the device's rows of those months, 180-690 buffers against 6-13: load history's row comparisons were
// no scan bound beside the months' literals, and events were appended and sorted. Written by that review.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { addMonths, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { printHookErrors } from '../../helpers/hook-errors.js';
import { recordingPool, type SentStatement } from '../../helpers/recording-pool.js';
import { zonedCaller } from '../../helpers/zoned-caller.js';
import { BOUND, explain } from '../storage/plan-bounds.js';

const test = printHookErrors(suite('one device\'s day range reads its page, not its months (real Postgres, 2,000 devices)'));
const NOW = Date.parse('2026-11-21T12:00:00Z');
const PREFIX = '8694200';
const SPAN = Array.from({ length: 4 }, (_, i) => addMonths(monthOfMs(NOW), i - 3));
const imei = (n: number) => `${PREFIX}${String(n).padStart(8, '0')}`;
const BUSY_CURRENTS = imei(11), BUSY_EVENTS = imei(7), MOVED = imei(15);
let db: TestDatabase;
const sent: SentStatement[] = [];
let get: (path: string) => Promise<{ status: number; body: { data: unknown[]; total: number } }>;

const busyEvents = (device: string, firstId: number) => db.pool.query(`insert into event_records ("EventID", "EventTimestamp", "EventType", "PrefaultCurrent", "FaultCurrent", "RecoverCurrent",
    "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
  select $2::int + s, timestamptz '2026-10-02' + s * interval '1 minute', 'Heartbeat', 1, 1, 1, timestamptz '2026-10-02' + s * interval '1 minute', $1,
         (select min("RecordID") from device_records where "IMEINumber" = $1), timestamptz '2026-10-02' + s * interval '1 minute'
    from generate_series(1, 20000) s`, [device, firstId]);

test.before(async () => {
  db = await createTestDatabase('device_range_plans');
  await importDemoData(db.pool);
  await registerDevices(db.pool, { prefix: PREFIX, devices: 2000, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  for (const m of SPAN) await db.pool.query('select fl_ensure_month($1::date)', [`${m}-01`]);
  await generateDeviceData(db.pool, { prefix: PREFIX, devices: 2000, count: 100_000, months: SPAN });
  // Busy devices: 20,000 rows each from 2026-10-02 to 2026-10-15, outside every range asked below.
  await db.pool.query(`insert into device_currents ("PacketTimestamp", "IMEINumber", "PeakCurrent", "PeakCurrentTimestamp", "CurrentName")
    select timestamptz '2026-10-02' + s * interval '1 minute', $1, 1, timestamptz '2026-10-02', 'x' from generate_series(1, 20000) s on conflict do nothing`, [BUSY_CURRENTS]);
  await busyEvents(BUSY_EVENTS, 5_000_000);
  await busyEvents(MOVED, 6_000_000);
  // Moved into north after its busy weeks.
  await db.pool.query(`update device_information set "OrganizationSince" = '2026-10-20T00:00:00Z' where "IMEINumber" = $1`, [MOVED]);
  await db.pool.query('vacuum analyze');
  // The demo admin's own zone (its days are Chicago's: the CASES' months follow from it).
  get = await zonedCaller(db.pool, 'admin', 'America/Chicago', { now: () => NOW, appPool: recordingPool(db.pool, (st) => sent.push(st)) });
});
test.after(async () => { await db?.drop(); });

/**
 * The page statement of `path` as sent: the buffers its plan touched as production plans it (plan-bounds.ts explain),
 * and planned with its values (`withValues`).
 */
async function pageBuffers(path: string): Promise<{ buffers: number; withValues: number; rows: string; scans: string[] }> {
  sent.length = 0;
  const r = await get(path);
  assert.is(r.status, 200, path);
  const page = sent.find((st) => st.rowMode === 'array' && /event_records|device_currents/.test(st.text))!;
  const e = await explain(db.pool, page);
  const withValues = await explain(db.pool, { ...page, plannedPerRequest: true });
  return { buffers: e.buffers, withValues: withValues.buffers, rows: JSON.stringify([r.body.data, r.body.total]), scans: e.scans };
}

const CASES: [string, string][] = [
  ['load history, the day before the busy weeks (Chicago: the months September and October)', `/device-records/device-information/load-history/${BUSY_CURRENTS}?from=20260930&to=20260930&limit=20`],
  ['load history, a full page on 1 October', `/device-records/device-information/load-history/${BUSY_CURRENTS}?from=20261001&to=20261001&limit=20`],
  ['load history, a week after the busy weeks', `/device-records/device-information/load-history/${BUSY_CURRENTS}?from=20261020&to=20261026&limit=20`],
  ['events, the month\'s last day', `/device-records/device-information/events/${BUSY_EVENTS}?from=20261031&to=20261031&limit=20`],
  ['events of a device moved in after its busy weeks', `/device-records/device-information/events/${MOVED}?from=20261021&to=20261027&limit=20`],
];

test('the first page of a range, as sent, reads within BOUND of its statement planned with its values, and answers as the filtered page', async () => {
  const out: string[] = [];
  for (const [label, path] of CASES) {
    const noOp = encodeURIComponent(JSON.stringify(path.includes('/events/') ? { EventID: { gte: -1 } } : { PeakCurrent: { gte: -1 } }));
    const first = await pageBuffers(path);
    const filtered = await pageBuffers(`${path}&filterBy=${noOp}`);
    assert.is(first.rows, filtered.rows, `${label}: same answer`);
    const line = `${label}: first page ${first.buffers} buffers (${first.scans.join(', ')}), planned with its values ${first.withValues}`;
    console.log(`  ${line}`);
    if (first.buffers > BOUND.factor * first.withValues + BOUND.slack) out.push(line);
  }
  assert.equal(out, [], `first pages reading the device's months:\n${out.join('\n')}`);
});

test.run();
