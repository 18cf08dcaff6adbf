// Critical data walked per device (issue 45, docs/decisions.md#critical-data-walked-per-device): the `by device`
// and `by active device` walks a group user's page takes answer exactly what the `by time` walk (the statement
// before them, still the admin's) answers: the same rows, in the same order, the same totals and the same keyset
// cursors, on a seeded history over real partitioned tables. Every walk is asked for every form the per-device walks take (the
// default order without filters: walkFor), as a group user and as an admin: first and OFFSET pages, a week, and keyset pages
// followed to the end through a day whose page boundaries fall inside instants shared by several events
// (two devices, both event tables and a model-change alert at one instant).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Caller } from '../../../api/auth/caller.js';
import { criticalData, criticalDataPage, walkFor, type PageWalk, type SourceWalk } from '../../../api/device-records/critical-data.js';
import type { ReadDeps } from '../../../api/device-records/endpoint.js';
import { readDeps } from '../../helpers/read-deps.js';
import { parseListQuery } from '../../../api/device-records/list-params.js';
import { addMonths, monthBounds, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { NOW, USERS, type UserName } from '../api/seeded-api.js';
import { printHookErrors } from '../../helpers/hook-errors.js';

const test = printHookErrors(suite('critical data: the per-device walk answers what the walk by time answers (real Postgres)'));

const PREFIX = '8650000';
const DEVICES = 24;
const SPAN = Array.from({ length: 2 }, (_, i) => addMonths(monthOfMs(NOW), i - 1));
const CALLERS: readonly UserName[] = ['northEast', 'northAdmin'];

let db: TestDatabase;
let deps: ReadDeps;
const callers = new Map<UserName, Caller>();
/** The day of the shared instant (YYYYMMDD) and the week around it. */
let day: string;
let week: { from: string; to: string };
const range = (r: Raw) => parseListQuery(r, criticalData.params);
let pagesCompared = 0;
let rowsCompared = 0;

type Raw = Record<string, string>;

/** The page's JSON text by `walk`. */
async function ask(user: UserName, raw: Raw, walk: PageWalk): Promise<string> {
  const q = parseListQuery(raw, criticalData.params);
  return (await criticalDataPage(deps, callers.get(user)!, q, walk)).text;
}

/** Both walks' answers to `raw`, held equal; the answer. */
async function same(user: UserName, raw: Raw, what: string): Promise<{ data: unknown[]; total: number; next?: string | null }> {
  const [byTime, byDevice, byActiveDevice] = [await ask(user, raw, 'by time'), await ask(user, raw, 'by device'), await ask(user, raw, 'by active device')];
  assert.fixture(byDevice, byTime, `${user} ${what} ${JSON.stringify(raw)}`);
  assert.fixture(byActiveDevice, byTime, `${user} ${what} ${JSON.stringify(raw)}, by active device`);
  const page = JSON.parse(byTime) as { data: unknown[]; total: number; next?: string | null };
  pagesCompared += 1;
  rowsCompared += page.data.length;
  return page;
}

/** Every keyset page of `raw` from its first, both walks equal at each; the pages and rows read. */
async function follow(user: UserName, raw: Raw, what: string, most = 400): Promise<{ pages: number; rows: number }> {
  let page = await same(user, raw, what);
  let pages = 1;
  let rows = page.data.length;
  while (page.next && pages < most) {
    page = await same(user, { ...raw, after: page.next }, `${what}, keyset page ${pages}`);
    pages += 1;
    rows += page.data.length;
  }
  return { pages, rows };
}

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

test.before(seed);

async function seed(): Promise<void> {
  db = await createTestDatabase('walks');
  await importDemoData(db.pool);
  await registerDevices(db.pool, { prefix: PREFIX, devices: DEVICES, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  for (const m of SPAN) await db.pool.query('select fl_ensure_month($1::date)', [`${m}-01`]);
  await generateDeviceData(db.pool, { prefix: PREFIX, devices: DEVICES, count: 6_000, months: SPAN });
  // One instant shared by two devices of north-east and one of north-west, in both event tables, and a
  // model-change alert of the first: ties the order breaks by Source, then SourceID.
  const shared = monthBounds(SPAN[0]!).fromMs + 10 * 86_400_000 + 12 * 3_600_000;
  const { rows } = await db.pool.query<{ imei: string; group: string }>(`select d."IMEINumber" as imei, g."GroupID" as group from device_information d
    join group_device_links g on g."DeviceID" = d."DeviceID" where d."IMEINumber" like $1 || '%' order by g."GroupID", 1`, [PREFIX]);
  const east = rows.filter((r) => r.group === 'north-east').slice(0, 2).map((r) => r.imei);
  const west = rows.find((r) => r.group === 'north-west')!.imei;
  assert.is(east.length, 2);
  const at = new Date(shared);
  // Each brought by the device's next check-in (its id and instant, as persist links them).
  const checkIn = async (imei: string) => (await db.pool.query<{ id: string; date: Date }>(
    `select "RecordID" as id, "date" from device_records where "IMEINumber" = $1 and "date" >= $2 order by "date" limit 1`, [imei, at])).rows[0]!;
  for (const [i, imei] of [...east, west].entries()) {
    const r = await checkIn(imei);
    await db.pool.query(`insert into event_records ("EventID", "EventTimestamp", "EventType", "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
      values ($1, $2, 'PFault', $3, $4, $5, $2)`, [9_000_000 + i, at, r.date, imei, r.id]);
  }
  for (const [i, imei] of east.entries()) {
    const r = await checkIn(imei);
    await db.pool.query(`insert into dm1_event_records ("EventID", "EventTimestamp", "EventType", "PhaseAEvent", "PhaseBEvent", "PhaseCEvent", "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
      values ($1, $2, 'FAULT_INITIAL', 'Fault', 'Normal', 'Normal', $3, $4, $5, $2)`, [9_100_000 + i, at, r.date, imei, r.id]);
  }
  await db.pool.query(`insert into model_change_alerts ("IMEINumber", "oldModel", "newModel", "at") values ($1, 'FCI-3000', 'FCI-3100', $2)`, [east[0], at]);
  await db.pool.query('vacuum analyze');
  day = ymd(shared);
  week = { from: ymd(shared - 3 * 86_400_000), to: ymd(shared + 3 * 86_400_000) };
  deps = readDeps(db.pool, () => NOW);
  for (const user of CALLERS) {
    const { rows: [u] } = await db.pool.query<{ id: string; org: string; role: 'admin' | 'user'; tz: string | null }>(`select u.id, u."OrganizationID" as org, u.role,
      coalesce(u.timezone, o.timezone) as tz from users u join organizations o on o."OrganizationID" = u."OrganizationID" where lower(u.email) = lower($1)`, [USERS[user].email]);
    callers.set(user, { userId: Number(u!.id), org: u!.org, role: u!.role, timeZone: u!.tz ?? 'UTC', maskFaultDetails: false });
  }
  const every = (walk: SourceWalk) => [walk, walk, walk];
  assert.equal(await walkFor(deps, callers.get('northEast')!, range(week)), every('by device'), 'a group user walks a range per device');
  assert.equal(await walkFor(deps, callers.get('northEast')!, range({})), every('by time'), 'a group user walks the whole history by time');
  assert.equal(await walkFor(deps, callers.get('northEast')!, range({ ...week, 'filterBy[Source]': 'event' })), every('by time'), 'a filtered range by time');
  assert.equal(await walkFor(deps, callers.get('northEast')!, range({ ...week, sortBy: JSON.stringify({ field: 'EventType' }) })), every('by time'), 'a sorted range by time');
  assert.equal(await walkFor(deps, callers.get('northAdmin')!, range(week)), every('by time'), 'an admin walks by time');
}
test.after(async () => { await db?.drop(); });

for (const user of CALLERS) {
  test(`${user}: first and OFFSET pages, of the whole history and of a week`, async () => {
    const first = await same(user, { limit: '20' }, 'first page');
    assert.is(first.data.length, 20);
    await same(user, { limit: '20', page: '3' }, 'page 3');
    await same(user, { limit: '20', ...week }, 'a week');
    await same(user, { limit: '20', page: '2', ...week }, 'a week, page 2');
    await same(user, { limit: '50', page: '4', ...week }, 'a week, page 4 of 50');
    await same(user, { limit: '20', sortBy: JSON.stringify({ field: 'EventTimestamp', order: 'desc' }), ...week }, 'a week in the default order spelled out');
  });

  test(`${user}: keyset pages followed to the end of a week and of a day, boundaries inside a shared instant`, async () => {
    const w = await follow(user, { limit: '20', ...week }, 'a week');
    assert.ok(w.pages >= 3, `a week is several pages (${w.pages})`);
    // The total (counted as the walk reads: a group user's keys first, its reach per device) is the rows there are.
    assert.is((await same(user, { limit: '20', ...week }, 'a week')).total, w.rows, 'the week\'s total is its rows');
    // Two rows a page: the five to six rows of the shared instant span page boundaries.
    const d = await follow(user, { limit: '2', from: day, to: day }, 'a day');
    assert.ok(d.pages >= 5 && d.rows >= 10, `a day is many pages (${d.pages}, ${d.rows} rows)`);
    await follow(user, { limit: '7', from: day, to: day }, 'a day, seven a page');
    await follow(user, { limit: '50' }, 'the whole history', 6);
  });
}

test('the walks compared pages with rows', () => {
  assert.ok(pagesCompared > 40 && rowsCompared > 500, `${pagesCompared} pages, ${rowsCompared} rows`);
  console.log(`  ${pagesCompared} pages (${rowsCompared} rows) answered alike by both walks`);
});

test.run();
