// A hostile group user against /device-records/critical-data over day ranges (api/device-records/critical-data.ts,
// docs/decisions.md#critical-data-keys-first-by-time and #a-short-page-is-its-own-total), on real PostgreSQL cut
// into one partition a day. Every answer is held to what the stored facts say the caller reaches, computed here in
// SQL on its own (the day's bounds by PostgreSQL's time zones, not the app's): the rows, their order and the total,
// for page sizes from 1 to 500, pages before, at and past the end, keyset chains, and keyset cursors forged to name
// rows the caller does not reach (another group's, another organisation's, a deleted device's, a moved device's
// from before its move, a device of a deleted group or of another organisation's group the user was linked to, an
// unregistered IMEI's). The history holds events at the range's exact bounds, Fault <50 events whose reported
// instant (the partition key) lies across a day and a month cut from their stored one, and DST days in both
// organisations' zones. North's group user reaches more than DEVICE_WALK_MAX devices (its page walks by time, keys
// first), south's fewer (by device); each group user's rows are also the bytes its admin's answer (whole rows,
// another statement) holds for them, under south's fault mask too.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import type { Caller } from '../../../api/auth/caller.js';
import { criticalData, criticalDataPage, DEVICE_WALK_MAX, walkFor, type PageWalk, type SourceWalk } from '../../../api/device-records/critical-data.js';
import { COUNT_CAP, type ReadDeps } from '../../../api/device-records/endpoint.js';
import { readDeps } from '../../helpers/read-deps.js';
import { encodeCursor } from '../../../api/device-records/keyset.js';
import { MAX_LIMIT, parseListQuery } from '../../../api/device-records/list-params.js';
import { FAULT_EVENT_TYPES } from '../../../domain/fault-events.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { dm1WalkNodes } from '../../helpers/dm1-walk.js';
import { recordingPool, type SentStatement } from '../../helpers/recording-pool.js';
import { JWT_SECRET, login, NOW, USERS, type UserName } from './seeded-api.js';
import { printHookErrors } from '../../helpers/hook-errors.js';

const test = printHookErrors(suite('critical data over day ranges: a hostile group user reads its own reach, totals exact (real Postgres)'));
const NORTH = '8693000';
const SOUTH = '8693001';
/** North: 2 x 210 devices, so north-east reaches more than DEVICE_WALK_MAX; south: 2 x 20. */
const NORTH_DEVICES = 420;
const SOUTH_DEVICES = 40;
const MONTHS = ['2026-10', '2026-11'];
const CALLERS: readonly UserName[] = ['northEast', 'northAdmin', 'southEast', 'southAdmin'];
const ran: string[] = [];
/** The statements of the last `api` call, as sent (which pool, which name). */
const sentByApi: SentStatement[] = [];
let db: TestDatabase;
let app: Hono;
let deps: ReadDeps;
const tokens = {} as Record<UserName, string>;
const callers = new Map<UserName, Caller>();
/** The hand-placed devices: north-east's own, the moved one (north-east since MOVED_SINCE), and those north-east must not read. */
const devices = { east: '', moved: '', west: '', deleted: '', oldGroup: '', southEast: '' };

type Raw = Record<string, string>;
/** A row of the list as the oracle and the answers name it. */
type Key = string; // `${Source}/${SourceID}`
interface Page { data: Record<string, unknown>[]; total: number; totalIsEstimate: boolean; next?: string | null }

/** The ranges asked, as the caller writes them. */
const RANGES: readonly Raw[] = [
  { from: '20261029', to: '20261104' }, // a week holding Chicago's DST end (1 November) and the month's cut
  { from: '20261101', to: '20261101' }, // Chicago's 25-hour day
  { from: '20261031', to: '20261101' }, // across the UTC month cut
  { from: '20261004', to: '20261004' }, // Sydney's 23-hour day
  { from: '20261103' }, // from only
  { to: '20261002' }, // to only
];

// Instants of the hand-placed rows (UTC). Chicago's week [2026-10-29T05:00Z, 2026-11-05T06:00Z).
const WEEK_FROM = Date.parse('2026-10-29T05:00:00Z');
const WEEK_UNTIL = Date.parse('2026-11-05T06:00:00Z');
const MOVED_SINCE = Date.parse('2026-11-01T12:00:00Z');
const S = 1000;
const UNREGISTERED = '869300299999999';

test.before(seed);

async function seed(): Promise<void> {
  db = await createTestDatabase('critical_reach');
  await importDemoData(db.pool);
  for (const m of MONTHS) await db.pool.query(`select fl_ensure_month($1::date, 'day')`, [`${m}-01`]);
  await registerDevices(db.pool, { prefix: NORTH, devices: NORTH_DEVICES, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await registerDevices(db.pool, { prefix: SOUTH, devices: SOUTH_DEVICES, org: 'south', powerLines: ['south-F12', 'south-F7'], groups: ['south-east', 'south-west'] });
  await generateDeviceData(db.pool, { prefix: NORTH, devices: NORTH_DEVICES, count: NORTH_DEVICES * 6, months: [...MONTHS] });
  await generateDeviceData(db.pool, { prefix: SOUTH, devices: SOUTH_DEVICES, count: SOUTH_DEVICES * 40, months: [...MONTHS] });
  const group = async (i: string) => (await db.pool.query<{ g: string }>(`select l."GroupID" as g from group_device_links l join device_information d using ("DeviceID") where d."IMEINumber" = $1`, [i])).rows.map((r) => r.g);
  // Devices by role: the first of each group of each prefix.
  const byGroup = async (prefix: string, g: string, skip = 0) => (await db.pool.query<{ imei: string }>(`select d."IMEINumber" as imei from device_information d
    join group_device_links l using ("DeviceID") where d."IMEINumber" like $1 || '%' and l."GroupID" = $2 order by 1 offset $3 limit 1`, [prefix, g, skip])).rows[0]!.imei;
  const east = await byGroup(NORTH, 'north-east');
  const west = await byGroup(NORTH, 'north-west');
  const deleted = await byGroup(NORTH, 'north-east', 1);
  const oldGroup = await byGroup(NORTH, 'north-west', 1);
  const southEast = await byGroup(SOUTH, 'south-east');
  const moved = await byGroup(SOUTH, 'south-east', 1);
  assert.equal(await group(east), ['north-east']);
  Object.assign(devices, { east, moved, west, deleted, oldGroup, southEast });

  /** The device's first check-in at or after `at` (persist links an event to the check-in that brought it). */
  const checkIn = async (i: string, at: number) => (await db.pool.query<{ id: string; date: Date }>(
    `select "RecordID" as id, "date" from device_records where "IMEINumber" = $1 and "date" >= $2 order by "date" limit 1`, [i, new Date(at)])).rows[0]
    ?? (await db.pool.query<{ id: string; date: Date }>(`select "RecordID" as id, "date" from device_records where "IMEINumber" = $1 order by "date" desc limit 1`, [i])).rows[0]!;
  let eventId = 9_500_000;
  /** A standard event: stored at `at`, reported at `reported` (a Fault <50 moved back 30 s), brought by the check-in at `packet`. */
  const event = async (i: string, type: string, at: number, reported = at, packet?: number) => {
    const r = await checkIn(i, packet ?? reported);
    await db.pool.query(`insert into event_records ("EventID", "EventTimestamp", "EventType", "PrefaultCurrent", "FaultCurrent", "RecoverCurrent", "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp", "TimestampShifted")
      values ($1, $2, $3, 40, 400, 10, $4, $5, $6, $7, $8)`, [eventId++, new Date(at), type, packet === undefined ? r.date : new Date(packet), i, r.id, new Date(reported), reported !== at]);
  };
  const dm1 = async (i: string, at: number, packet?: number) => {
    const r = await checkIn(i, packet ?? at);
    await db.pool.query(`insert into dm1_event_records ("EventID", "EventTimestamp", "EventType", "PhaseAEvent", "PhaseBEvent", "PhaseCEvent", "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
      values ($1, $2, 'FAULT_INITIAL', 'Fault', 'Normal', 'Normal', $3, $4, $5, $2)`, [eventId++, new Date(at), packet === undefined ? r.date : new Date(packet), i, r.id]);
  };
  const alert = async (i: string, at: number) => {
    await db.pool.query(`insert into model_change_alerts ("IMEINumber", "oldModel", "newModel", "at") values ($1, 'FCI-3000', 'FCI-3100', $2) on conflict do nothing`, [i, new Date(at)]);
  };

  // The week's exact bounds, in reach and out of it, in each source.
  for (const i of [east, west, deleted, oldGroup, southEast]) {
    await event(i, 'PFault', WEEK_FROM); // the first instant: in
    await event(i, 'SOTF', WEEK_FROM - 1); // just before: out
    await event(i, 'TFault', WEEK_UNTIL - 1); // the last millisecond: in
    await event(i, 'PFault', WEEK_UNTIL); // the next day's start: out
    await dm1(i, WEEK_FROM);
    await dm1(i, WEEK_UNTIL - 1);
    await alert(i, WEEK_FROM);
    await alert(i, WEEK_UNTIL - 1);
    // Fault <50 moved back 30 s (domain/fault-shift.ts): reported across the UTC day and month cut (its partition
    // is 1 November's, its stored instant 31 October's), at the week's end (reported after it: in) and just before
    // its start (reported inside it: out).
    await event(i, 'Fault <50', Date.parse('2026-10-31T23:59:50Z'), Date.parse('2026-11-01T00:00:20Z'));
    await event(i, 'Fault <50', WEEK_UNTIL - 15 * S, WEEK_UNTIL + 15 * S);
    await event(i, 'Fault <50', WEEK_FROM - 15 * S, WEEK_FROM + 15 * S);
    // Chicago's DST end: 01:30 CDT and 01:30 CST on 1 November, and the day's last millisecond.
    await event(i, 'Overcurrent', Date.parse('2026-11-01T06:30:00Z'));
    await event(i, 'Overcurrent', Date.parse('2026-11-01T07:30:00Z'));
    await event(i, 'Fault Like', Date.parse('2026-11-02T05:59:59.999Z'));
    // Sydney's DST start (4 October, 23 hours): its first and last instant.
    await event(i, 'PFault', Date.parse('2026-10-03T14:00:00Z'));
    await event(i, 'PFault', Date.parse('2026-10-04T12:59:59.999Z'));
    // Microseconds: a cursor carries them (keyset.ts), and two rows one microsecond apart.
    await db.pool.query(`insert into event_records ("EventID", "EventTimestamp", "EventType", "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
      select $1 + k, '2026-11-02T12:00:00.000001Z'::timestamptz + k * interval '1 microsecond', 'PFault', r."date", r."IMEINumber", r."RecordID", '2026-11-02T12:00:00.000001Z'::timestamptz + k * interval '1 microsecond'
        from (select * from device_records where "IMEINumber" = $2 order by "date" desc limit 1) r, generate_series(0, 1) k`, [eventId, i]);
    eventId += 2;
  }

  // An IMEI no device_information row names (unregistered): outside every reach, an admin's too.
  const r = await checkIn(east, WEEK_FROM);
  await db.pool.query(`insert into event_records ("EventID", "EventTimestamp", "EventType", "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
    values ($1, $2, 'PFault', $3, $4, $5, $2)`, [eventId++, new Date(WEEK_FROM + 3_600 * S), r.date, UNREGISTERED, r.id]);
  await db.pool.query(`insert into dm1_event_records ("EventID", "EventTimestamp", "EventType", "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
    values ($1, $2, 'FAULT_INITIAL', $3, $4, $5, $2)`, [eventId++, new Date(WEEK_FROM + 3_600 * S), r.date, UNREGISTERED, r.id]);
  await alert(UNREGISTERED, WEEK_FROM + 3_600 * S);

  // Moved from south to north at MOVED_SINCE, now in north-east: north reads what its check-ins brought from the
  // move on (PacketTimestamp), south nothing of it.
  await db.pool.query(`update device_information set "OrganizationID" = 'north', "PowerLineID" = 'north-F12', "OrganizationSince" = $2 where "IMEINumber" = $1`, [moved, new Date(MOVED_SINCE)]);
  await db.pool.query(`delete from group_device_links where "DeviceID" = (select "DeviceID" from device_information where "IMEINumber" = $1)`, [moved]);
  await db.pool.query(`insert into group_device_links ("DeviceID", "GroupID") select "DeviceID", 'north-east' from device_information where "IMEINumber" = $1`, [moved]);
  await event(moved, 'PFault', MOVED_SINCE - 3_600 * S, MOVED_SINCE - 3_600 * S, MOVED_SINCE - 60 * S); // before: out
  await event(moved, 'PFault', MOVED_SINCE - 3_600 * S, MOVED_SINCE - 3_599 * S, MOVED_SINCE); // happened before, brought at the move: in
  await event(moved, 'TFault', MOVED_SINCE + 60 * S, MOVED_SINCE + 60 * S, MOVED_SINCE - 1); // stamped after, brought before: out
  await dm1(moved, MOVED_SINCE - 60 * S, MOVED_SINCE - 30 * S);
  await dm1(moved, MOVED_SINCE + 60 * S, MOVED_SINCE + 90 * S);
  await alert(moved, MOVED_SINCE - 1);
  await alert(moved, MOVED_SINCE);

  // Deleted: the device, and a group of the user holding a north-west device; the user linked to another
  // organisation's group too (a link the import would not make: reach must still hold).
  await db.pool.query(`update device_information set deleted_at = now() where "IMEINumber" = $1`, [deleted]);
  await db.pool.query(`insert into groups ("GroupID", "OrganizationID", name, deleted_at) values ('north-old', 'north', 'Crew Old', now())`);
  await db.pool.query(`insert into group_device_links ("DeviceID", "GroupID") select "DeviceID", 'north-old' from device_information where "IMEINumber" = $1`, [oldGroup]);
  await db.pool.query(`insert into user_groups (user_id, "GroupID") select id, g from users, unnest(array['north-old', 'south-east']) g where email = 'east@north.example'`);
  await db.pool.query(`insert into user_groups (user_id, "GroupID") select id, 'north-west' from users where email = 'east@south.example'`);
  await db.pool.query('vacuum analyze');

  const pool = recordingPool(db.pool, (st) => { ran.push(st.text); sentByApi.push(st); });
  app = createApp({ readiness: {}, pool, now: () => NOW, readCacheMs: 0, jwtSecret: JWT_SECRET });
  for (const user of CALLERS) tokens[user] = await login(app, user);
  deps = readDeps(db.pool, () => NOW);
  for (const user of CALLERS) {
    const { rows: [u] } = await db.pool.query<{ id: string; org: string; role: 'admin' | 'user'; tz: string }>(`select u.id, u."OrganizationID" as org, u.role,
      coalesce(u.timezone, o.timezone) as tz from users u join organizations o using ("OrganizationID") where lower(u.email) = lower($1)`, [USERS[user].email]);
    callers.set(user, { userId: Number(u!.id), org: u!.org, role: u!.role, timeZone: u!.tz, maskFaultDetails: false });
  }
  const week = parseListQuery(RANGES[0]!, criticalData.params);
  // North-east's devices with standard fault events in the week's months are more than DEVICE_WALK_MAX: by time;
  // those with DM1 events or model changes fewer: by active device.
  const kind = (walk: readonly SourceWalk[]) => walk.map((w) => (typeof w === 'object' ? 'over its active devices' : w));
  assert.equal(kind(await walkFor(deps, callers.get('northEast')!, week)), ['by time', 'over its active devices', 'over its active devices'],
    `north-east reaches more than ${DEVICE_WALK_MAX} devices: its page walks standard events by time, keys first, and the sparse sources per active device`);
  assert.equal(await walkFor(deps, callers.get('southEast')!, week), ['by device', 'by device', 'by device'], 'south-east walks by device');
}
test.after(async () => { await db?.drop(); });

/** The caller's list of `raw`'s range as the stored facts say (spec 5.3, reach.ts's rule restated), newest first. */
async function expected(user: UserName, raw: Raw, after?: { at: string; source: string; id: string }): Promise<Key[]> {
  const { rows } = await db.pool.query<{ key: Key }>(`
    with u as (select u.id, u."OrganizationID" as org, u.role, coalesce(u.timezone, o.timezone) as tz
                 from users u join organizations o using ("OrganizationID") where lower(u.email) = lower($1)),
    reach as (select d."IMEINumber", d."OrganizationSince" from device_information d, u
               where d.deleted_at is null and d."OrganizationID" = u.org
                 and (u.role = 'admin' or exists (select 1 from group_device_links l join user_groups ug on ug."GroupID" = l."GroupID" and ug.user_id = u.id
                        join groups g on g."GroupID" = l."GroupID" and g.deleted_at is null where l."DeviceID" = d."DeviceID"))),
    bounds as (select (to_date($2, 'YYYYMMDD')::timestamp at time zone u.tz) as lo, ((to_date($3, 'YYYYMMDD') + 1)::timestamp at time zone u.tz) as hi from u),
    rows as (
      select 'event'::text as src, e."Event_Record_ID" as id, e."EventTimestamp" as et, e."PacketTimestamp" as pt, e."IMEINumber" as imei from event_records e where e."EventType" = any($4)
      union all select 'dm1_event', e."Event_Record_ID", e."EventTimestamp", e."PacketTimestamp", e."IMEINumber" from dm1_event_records e where e."EventType" = any($4)
      union all select 'model_change', a.id, a."at", a."at", a."IMEINumber" from model_change_alerts a)
    select r.src || '/' || r.id as key from rows r join reach on reach."IMEINumber" = r.imei, bounds b
     where r.pt >= reach."OrganizationSince"
       and (b.lo is null or r.et >= b.lo) and (b.hi is null or r.et < b.hi)
       and ($5::timestamptz is null or r.et < $5 or (r.et = $5 and (r.src > $6 or (r.src = $6 and r.id < $7::bigint))))
     order by r.et desc, r.src, r.id desc`,
  [USERS[user].email, raw.from ?? null, raw.to ?? null, FAULT_EVENT_TYPES, after?.at ?? null, after?.source ?? null, after?.id ?? null]);
  return rows.map((r) => r.key);
}

/** The total's statement (endpoint.ts cappedTotal over the sources), not walkFor's count of devices. */
const COUNTED = '(select count(*) from (select 1 from ';
const keyOf = (row: Record<string, unknown>): Key => `${String(row.Source)}/${String(row.SourceID)}`;
const query = (raw: Raw) => new URLSearchParams(raw).toString();

/** The API's answer, and whether a count statement ran for it. */
async function api(user: UserName, raw: Raw): Promise<Page & { counted: boolean }> {
  ran.length = 0;
  sentByApi.length = 0;
  const res = await app.request(`/device-records/critical-data?${query(raw)}`, { headers: { authorization: `Bearer ${tokens[user]}` } });
  const body = await res.text();
  assert.is(res.status, 200, `${user} ${query(raw)}: ${body.slice(0, 300)}`);
  return { ...(JSON.parse(body) as Page), counted: ran.some((t) => t.includes(COUNTED)) };
}

/** The page by `walk` (criticalDataPage itself, unmasked). */
async function direct(user: UserName, raw: Raw, walk: PageWalk): Promise<Page> {
  return JSON.parse((await criticalDataPage(deps, callers.get(user)!, parseListQuery(raw, criticalData.params), walk)).text) as Page;
}

let pagesAsked = 0;

/** Every row of `range` through the API, keyset pages of MAX_LIMIT. */
async function chain(user: UserName, range: Raw): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let raw: Raw = { ...range, limit: String(MAX_LIMIT) };
  for (;;) {
    const answer = await api(user, raw);
    rows.push(...answer.data);
    assert.ok(rows.length <= answer.total, `${user} ${query(range)}: a chain ends at its total`);
    if (!answer.next) return rows;
    raw = { ...range, limit: String(MAX_LIMIT), after: answer.next };
  }
}

/** One page held to the oracle's list `all`: its rows, its total (exact under COUNT_CAP) and its `next`. */
function hold(page: Page, all: readonly Key[], want: readonly Key[], limit: number, what: string): void {
  pagesAsked += 1;
  assert.equal(page.data.map(keyOf), want, `${what}: rows`);
  assert.is(page.total, all.length, `${what}: total`);
  assert.is(page.totalIsEstimate, false, `${what}: an exact total`);
  if (page.next !== undefined) assert.is(page.next === null, want.length < limit, `${what}: a next cursor exactly when the page is full`);
}

/** The pages of `limit` asked: the first ones, those around the end and past it (every one for a short list). */
function pagesOf(n: number, limit: number): number[] {
  const last = Math.max(0, Math.ceil(n / limit) - 1);
  if (last <= 40) return Array.from({ length: last + 3 }, (_, i) => i);
  return [...new Set([0, 1, 2, last - 1, last, last + 1, last + 2, last + 50])];
}

for (const user of CALLERS) {
  test(`${user}: every range, page sizes 1 to ${MAX_LIMIT}, pages up to past the end: its rows and its exact total`, async () => {
    for (const range of RANGES) {
      const all = await expected(user, range);
      assert.ok(all.length < COUNT_CAP, `${user} ${query(range)}: ${all.length} rows, counted exactly`);
      for (const limit of new Set([1, 2, 3, 50, all.length, all.length + 1, MAX_LIMIT].filter((l) => l >= 1 && l <= MAX_LIMIT))) {
        for (const page of pagesOf(all.length, limit)) {
          const raw = { ...range, limit: String(limit), page: String(page) };
          const want = all.slice(page * limit, page * limit + limit);
          const answer = await api(user, raw);
          hold(answer, all, want, limit, `${user} ${query(raw)}`);
          // A page without a cursor that is not full (and not empty past the first) needs no count.
          assert.is(answer.counted, !(want.length < limit && !(want.length === 0 && page > 0)), `${user} ${query(raw)}: counted`);
        }
      }
    }
  });

  test(`${user}: keyset chains of every range, followed to the end`, async () => {
    for (const range of RANGES) {
      const all = await expected(user, range);
      for (const limit of [1, 7, 50]) {
        if (limit === 1 && all.length > 60) continue;
        const read: Key[] = [];
        let raw: Raw = { ...range, limit: String(limit) };
        for (let pages = 0; ; pages += 1) {
          assert.ok(pages <= all.length + 1, 'the chain ends');
          const answer = await api(user, raw);
          hold(answer, all, all.slice(read.length, read.length + limit), limit, `${user} ${query(raw)}`);
          read.push(...answer.data.map(keyOf));
          if (!answer.next) break;
          raw = { ...range, limit: String(limit), after: answer.next };
        }
        assert.equal(read, all, `${user} ${query(range)} in pages of ${limit}`);
      }
    }
  });

  test(`${user}: keyset cursors forged at rows out of reach and out of range read on from there, and only the caller's rows`, async () => {
    // Every row of the sources: the caller's and every other's, in and out of the week.
    const { rows } = await db.pool.query<{ at: string; source: string; id: string; imei: string }>(`
      select * from (
        select e."EventTimestamp"::text as at, 'event' as source, e."Event_Record_ID"::text as id, e."IMEINumber" as imei from event_records e where e."EventID" >= 9500000
        union all select e."EventTimestamp"::text, 'dm1_event', e."Event_Record_ID"::text, e."IMEINumber" from dm1_event_records e where e."EventID" >= 9500000
        union all select a."at"::text, 'model_change', a.id::text, a."IMEINumber" from model_change_alerts a) s order by at, source, id`);
    assert.ok(rows.length > 60, `${rows.length} hand-placed rows`);
    for (const range of [RANGES[0]!, RANGES[4]!]) {
      const all = await expected(user, range);
      for (const r of rows) {
        const want = await expected(user, range, r);
        for (const limit of [3]) {
          const raw = { ...range, limit: String(limit), after: encodeCursor([r.at, r.source, r.id]) };
          hold(await api(user, raw), all, want.slice(0, limit), limit, `${user} ${query(range)} after ${r.source} ${r.id} at ${r.at} (${r.imei})`);
        }
      }
    }
  });

  test(`${user}: its rows are the bytes its admin's whole-row answer holds for them (${user.startsWith('south') ? 'masked' : 'unmasked'})`, async () => {
    const admin: UserName = user.startsWith('north') ? 'northAdmin' : 'southAdmin';
    for (const range of RANGES) {
      const whole = new Map((await chain(admin, range)).map((row) => [keyOf(row), row]));
      const mine = await chain(user, range);
      assert.ok(whole.size >= mine.length);
      for (const row of mine) assert.equal(row, whole.get(keyOf(row)), `${user} ${query(range)} ${keyOf(row)}`);
      if (user.startsWith('south')) for (const row of mine) assert.ok(['Fault', 'Model Change'].includes(String(row.EventType)), `masked: ${String(row.EventType)}`);
    }
  });
}

test('a group user\'s walks by time (keys first), by device and by active device answer the oracle alike, pages and keyset chains', async () => {
  for (const user of ['northEast', 'southEast'] as const) {
    for (const range of RANGES) {
      const all = await expected(user, range);
      for (const walk of ['by time', 'by device', 'by active device'] as const) {
        for (const limit of [3, 50]) {
          for (const page of pagesOf(all.length, limit).slice(0, 8)) {
            hold(await direct(user, { ...range, limit: String(limit), page: String(page) }, walk), all, all.slice(page * limit, page * limit + limit), limit, `${user} ${walk} ${query(range)} ${limit}/${page}`);
          }
        }
        const read: Key[] = [];
        let raw: Raw = { ...range, limit: '7' };
        for (;;) {
          const answer = await direct(user, raw, walk);
          hold(answer, all, all.slice(read.length, read.length + 7), 7, `${user} ${walk} ${query(raw)}`);
          read.push(...answer.data.map(keyOf));
          assert.ok(read.length <= all.length, 'the chain ends');
          if (!answer.next) break;
          raw = { ...range, limit: '7', after: answer.next };
        }
        assert.equal(read, all);
      }
    }
  }
});

test('a walk reused within its second never widens the reach: a listed device unlinked meanwhile is not read', async () => {
  const cached = createApp({ readiness: {}, pool: db.pool, now: () => NOW, readCacheMs: 60_000, jwtSecret: JWT_SECRET });
  const token = await login(cached, 'northEast');
  const week = RANGES[0]!;
  const ask = async () => {
    const res = await cached.request(`/device-records/critical-data?${query({ ...week, limit: String(MAX_LIMIT) })}`, { headers: { authorization: `Bearer ${token}` } });
    assert.is(res.status, 200);
    return ((await res.json()) as Page).data;
  };
  const eastDm1 = (rows: Record<string, unknown>[]) => rows.filter((r) => r.IMEINumber === devices.east && r.Source === 'dm1_event').length;
  // The walk (east among the DM1 and model-change lists) is decided now and kept for the minute.
  const before = await ask();
  assert.equal(before.map(keyOf), await expected('northEast', week));
  assert.ok(eastDm1(before) > 0, 'north-east reads east\'s DM1 rows of the week');
  const link = await db.pool.query<{ DeviceID: string }>(`delete from group_device_links where "GroupID" = 'north-east'
    and "DeviceID" = (select "DeviceID" from device_information where "IMEINumber" = $1) returning "DeviceID"`, [devices.east]);
  try {
    const after = await ask();
    assert.is(eastDm1(after), 0, 'the rows of the device unlinked are gone at once, though the walk that listed it is reused');
    assert.equal(after.map(keyOf), await expected('northEast', week));
  } finally {
    await db.pool.query(`insert into group_device_links ("DeviceID", "GroupID") values ($1, 'north-east')`, [link.rows[0]!.DeviceID]);
  }
});

test('north-east\'s week walks the DM1 events of its own devices alone, not the organisation\'s (by active device)', async () => {
  const raw = { ...RANGES[0]!, limit: '50' };
  const mine = (await expected('northEast', raw)).filter((k) => k.startsWith('dm1_event/')).length;
  // North-west's DM1 events of the week: a walk by time steps over them.
  const { rows: [others] } = await db.pool.query<{ n: number }>(`select count(*)::int as n from dm1_event_records e join device_information d using ("IMEINumber")
    where d."OrganizationID" = 'north' and e."EventTimestamp" >= $1 and e."EventTimestamp" < $2
      and not exists (select 1 from group_device_links l where l."DeviceID" = d."DeviceID" and l."GroupID" = 'north-east')`, [new Date(WEEK_FROM), new Date(WEEK_UNTIL)]);
  assert.ok(mine > 0 && others!.n > 0, `north-east has DM1 events in the week (${mine}), and north-west too (${others!.n})`);
  const sent: SentStatement[] = [];
  const q = parseListQuery(raw, criticalData.params);
  await criticalDataPage({ ...deps, pool: recordingPool(db.pool, (st) => { sent.push(st); }) }, callers.get('northEast')!, q, await walkFor(deps, callers.get('northEast')!, q));
  const page = sent.find((st) => st.text.trimStart().startsWith('select u.*'))!;
  // Rows the DM1 walk read; a node's rows are its average per loop, to two decimals.
  const nodes = await dm1WalkNodes(db.pool, page);
  const walked = nodes.reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
  const rounding = nodes.reduce((sum, n) => sum + 0.005 * n['Actual Loops'], 0);
  assert.ok(walked <= mine + rounding, `the DM1 walk read ${walked.toFixed(2)} rows (± ${rounding.toFixed(2)}) for north-east's ${mine}; north-west has ${others!.n}`);
});

test('north-east\'s week, read directly: its own device and the moved one from the move on; none of the others', async () => {
  const rows = await chain('northEast', RANGES[0]!);
  const of = (i: string) => rows.filter((r) => r.IMEINumber === i);
  assert.ok(of(devices.east).length >= 13, `north-east's own device: ${of(devices.east).length} rows`);
  for (const i of [devices.west, devices.deleted, devices.oldGroup, devices.southEast, UNREGISTERED]) assert.is(of(i).length, 0, i);
  const { rows: [m] } = await db.pool.query<{ before: number; after: number }>(`select count(*) filter (where pt < $2)::int as before, count(*) filter (where pt >= $2)::int as after from (
      select "PacketTimestamp" as pt, "EventTimestamp" as et from event_records where "IMEINumber" = $1 and "EventType" = any($3)
      union all select "PacketTimestamp", "EventTimestamp" from dm1_event_records where "IMEINumber" = $1 and "EventType" = any($3)
      union all select "at", "at" from model_change_alerts where "IMEINumber" = $1) s where et >= $4 and et < $5`,
  [devices.moved, new Date(MOVED_SINCE), FAULT_EVENT_TYPES, new Date(WEEK_FROM), new Date(WEEK_UNTIL)]);
  assert.ok(m!.before >= 4 && m!.after >= 4, JSON.stringify(m));
  assert.is(of(devices.moved).length, m!.after, 'the moved device: its rows brought from the move on');
  const admin = await chain('northAdmin', RANGES[0]!);
  assert.ok(admin.length > rows.length + 40, `north-east ${rows.length} of north's ${admin.length} rows in the week`);
  assert.is(admin.filter((r) => r.IMEINumber === UNREGISTERED).length, 0, 'an unregistered IMEI: no one\'s');
  assert.is((await chain('southAdmin', RANGES[0]!)).filter((r) => r.IMEINumber === devices.moved).length, 0, 'south reads nothing of the device it lost');
});

test('a day range\'s keyset chain is one statement planned per request with its cursor as a value, not a text per page (a name per cursor would fill the prepared texts)', async () => {
  const pageStatement = () => sentByApi.find((st) => st.text.trimStart().startsWith('select u.*'))!;
  const literal = /'\d{4}-\d\d-\d\d[ T][^']*'::timestamptz/;
  for (const user of ['northAdmin', 'northEast'] as const) {
    const names = new Set<string | undefined>();
    let raw: Raw = { ...RANGES[0]!, limit: '5' };
    for (let page = 0; page < 4; page++) {
      const answer = await api(user, raw);
      const st = pageStatement();
      assert.ok(st.plannedPerRequest && !literal.test(st.text), `${user} page ${page}: planned per request, no instant in its text`);
      if (page > 0) names.add(st.name);
      assert.ok(answer.next, `${user}: the week holds more than ${page + 1} pages of 5`);
      raw = { ...RANGES[0]!, limit: '5', after: answer.next! };
    }
    assert.is(names.size, 1, `${user}: one keyset statement for every cursor: ${[...names].join(', ')}`);
    assert.not.ok(names.has(undefined));
  }
});

test('the pages asked', () => {
  assert.ok(pagesAsked > 2000, `${pagesAsked} pages`);
  console.log(`  ${pagesAsked} pages held to the stored facts`);
});

test.run();
