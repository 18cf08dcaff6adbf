// A data-log OFFSET page checks reach with one hashed set of the devices in reach (api/device-records/reach.ts
// recordReach, docs/decisions.md#deep-pages-hash-the-reach) where first and keyset pages probe each record's
// device. The two forms must answer the same rows: every OFFSET page, in order, is the list the keyset chain
// reads, and that list is exactly the stored records the pure reach rule allows (devices of the caller's
// organisation, not deleted, in a user's groups, a moved device's records from its move on). The walk must really
// take the set form on those pages (the statements sent say so), read the devices once (a materialized CTE), and stay
// an index walk under the page's LIMIT even where the planner believes no page of the index all-visible (a month
// being written, not yet vacuumed): a set fenced above the walk was planned for the whole window there, a sort of it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import { addMonths, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { recordingPool, type SentStatement } from '../../helpers/recording-pool.js';
import { JWT_SECRET, login, NOW, type UserName } from './seeded-api.js';

const test = suite('data-log OFFSET pages: a reach set answers what the probes do');

const PREFIX = '8650000';
const OTHER_ORG = '8651000';
const DEVICES = 24;
const PAGE = 40;
const SPAN = Array.from({ length: 3 }, (_, i) => addMonths(monthOfMs(NOW), i - 2));
// Device 3 deleted, device 4 moved into north in the middle month (its records before that are not north's).
const DELETED = `${PREFIX}00000003`;
const MOVED = `${PREFIX}00000004`;
const MOVED_AT = new Date(Date.parse(`${SPAN[1]}-15T00:00:00Z`));

let db: TestDatabase;
let app: Hono;
const sent: SentStatement[] = [];

test.before(async () => {
  db = await createTestDatabase('deep_pages');
  await importDemoData(db.pool);
  await registerDevices(db.pool, { prefix: PREFIX, devices: DEVICES, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await registerDevices(db.pool, { prefix: OTHER_ORG, devices: 6, org: 'south', powerLines: ['south-F12', 'south-F7'], groups: ['south-east', 'south-west'] });
  for (const m of SPAN) await db.pool.query('select fl_ensure_month($1::date)', [`${m}-01`]);
  await generateDeviceData(db.pool, { prefix: PREFIX, devices: DEVICES, count: 2_000, months: SPAN });
  await generateDeviceData(db.pool, { prefix: OTHER_ORG, devices: 6, count: 300, months: SPAN });
  await db.pool.query(`update device_information set deleted_at = now() where "IMEINumber" = $1`, [DELETED]);
  await db.pool.query(`update device_information set "OrganizationSince" = $2 where "IMEINumber" = $1`, [MOVED, MOVED_AT]);
  await db.pool.query('vacuum analyze');
  app = createApp({ readiness: {}, pool: recordingPool(db.pool, (s) => sent.push(s)), jwtSecret: JWT_SECRET, now: () => NOW, accountCacheMs: 0, readCacheMs: 0 });
});
test.after(async () => { await db.drop(); });

/** The records the reach rule allows `user`, newest first: north's devices not deleted (north-east's for the group user), the moved one from its move on. */
async function allowed(user: UserName, range?: { from: Date; until: Date }): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(`
    select r."RecordID"::text as id from device_records r join device_information d using ("IMEINumber")
     where d."OrganizationID" = 'north' and d.deleted_at is null and r."date" >= d."OrganizationSince"
       and ($1 = 'northAdmin' or exists (select 1 from group_device_links l where l."DeviceID" = d."DeviceID" and l."GroupID" = 'north-east'))
       and ($2::timestamptz is null or r."date" >= $2) and ($3::timestamptz is null or r."date" < $3)
     order by r."date" desc, r."RecordID" desc`, [user, range?.from ?? null, range?.until ?? null]);
  return rows.map((r) => r.id);
}

type Page = { data: { RecordID: number }[]; next?: string | null };

async function get(token: string, url: string, on: Hono = app): Promise<Page> {
  const res = await on.request(url, { headers: { authorization: `Bearer ${token}` } });
  assert.is(res.status, 200, `${url}: ${res.status}`);
  return (await res.json()) as Page;
}

/** Every page by OFFSET (page 0, 1, ... until a short one), and the statements each page after the first sent. */
async function byOffset(token: string, query: string): Promise<{ ids: string[]; deepStatements: string[] }> {
  const ids: string[] = [];
  const deepStatements: string[] = [];
  for (let page = 0; ; page++) {
    sent.length = 0;
    const { data } = await get(token, `/device-records/data-log?limit=${PAGE}&page=${page}${query}`);
    if (page > 0) deepStatements.push(...sent.map((s) => s.text));
    ids.push(...data.map((r) => String(r.RecordID)));
    if (data.length < PAGE) return { ids, deepStatements };
  }
}

/** Every page by keyset cursor (each page's device probed). */
async function byKeyset(token: string, query: string): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null | undefined = null;
  do {
    const page: Page = await get(token, `/device-records/data-log?limit=${PAGE}${query}${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    ids.push(...page.data.map((r) => String(r.RecordID)));
    after = page.next;
  } while (after);
  return ids;
}

const SET_FORM = /^with reach_set as materialized \(select d\."IMEINumber" from device_information d where [^]*\(r\."IMEINumber" in \(select s\."IMEINumber" from reach_set s\)\) is true/;

for (const user of ['northAdmin', 'northEast'] as const) {
  test(`${user}: every OFFSET page, in order, is the keyset chain's list, and both are the records in reach`, async () => {
    const token = await login(app, user);
    const expected = await allowed(user);
    assert.ok(expected.length > 10 * PAGE, `enough records for deep pages (${expected.length})`);
    const offset = await byOffset(token, '');
    assert.equal(await byKeyset(token, ''), expected, 'the keyset chain reads the records in reach');
    assert.equal(offset.ids, expected, 'the OFFSET pages read the same records in the same order');
    const page = offset.deepStatements.filter((t) => t.includes('limit') && t.includes('offset'));
    assert.ok(page.length > 0 && page.every((t) => SET_FORM.test(t)), 'the pages after the first walk with the reach set');
  });

  test(`${user}: a day range's OFFSET pages the same`, async () => {
    const token = await login(app, user);
    const from = `${SPAN[1]!.replace('-', '')}10`;
    const to = `${SPAN[1]!.replace('-', '')}25`;
    // The demo organisation's zone is UTC-5 or so; the API's days are the caller's: compare the API's own chains.
    const offset = await byOffset(token, `&from=${from}&to=${to}`);
    const keyset = await byKeyset(token, `&from=${from}&to=${to}`);
    assert.ok(keyset.length > 3 * PAGE, `a range with several pages (${keyset.length})`);
    assert.equal(offset.ids, keyset, 'the OFFSET pages of the range read what its keyset chain reads');
    const all = new Set(await allowed(user));
    assert.ok(keyset.every((id) => all.has(id)), 'only records in reach');
  });
}

/** A plan node of EXPLAIN (ANALYZE, FORMAT JSON), as far as these checks read it. */
interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Actual Rows': number; 'Actual Loops': number; Plans?: PlanNode[] }

/** The records of device_records (any month) a statement's plan read, and the rows its sorts took in. */
async function planReads(statement: SentStatement): Promise<{ records: number; sorted: number }> {
  const { rows: [row] } = await db.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) ${statement.text}`, statement.values);
  const out = { records: 0, sorted: 0 };
  const visit = (n: PlanNode) => {
    if (n['Relation Name']?.startsWith('device_records')) out.records += n['Actual Rows'] * n['Actual Loops'];
    if (n['Node Type'] === 'Sort') out.sorted += n['Actual Rows'] * n['Actual Loops'];
    n.Plans?.forEach(visit);
  };
  visit(row!['QUERY PLAN'][0].Plan);
  return out;
}

/** The OFFSET page statements (with their values as each attempt sent them) of `url`. */
async function pageStatements(on: Hono, token: string, url: string): Promise<{ page: Page; statements: SentStatement[] }> {
  sent.length = 0;
  const page = await get(token, url, on);
  return { page, statements: sent.filter((s) => s.text.includes('limit') && s.text.includes('offset')).map((s) => ({ ...s, values: [...s.values] })) };
}

// A filter on a column the record index does not hold makes the walk read each record's row. The set form as first
// written (fenced above the walk, offset 0, under an ORDER BY) planned that walk for every row of the window: it sorted
// every record of the window, of every organisation, for each window tried (a user who reaches a few devices: the
// whole fleet's history sorted, spilling to disk, where the probe form starts from the caller's devices).
test('northEast: a filtered OFFSET page answers the keyset chain\'s list without the set form\'s sort of the window', async () => {
  const token = await login(app, 'northEast');
  const filter = '&filterBy[rssi][gte]=-200';
  const offset = await byOffset(token, filter);
  assert.equal(offset.ids, await byKeyset(token, filter), 'the filtered OFFSET pages read what the keyset chain reads');
  assert.equal(offset.ids, await allowed('northEast'), 'and both are the records in reach');
  const page = offset.deepStatements.filter((t) => t.includes('limit') && t.includes('offset'));
  assert.ok(page.length > 0 && !page.some((t) => SET_FORM.test(t)), 'a filtered walk probes');
});

// A user who reaches no device (every group deleted; a new user before an admin links a group) counts 0 devices in
// reach, so every OFFSET page qualified for the set: the walk then read, and with a filter sorted, every record of
// every organisation, in each of the four windows, to answer nothing.
test('a user who reaches no device: an OFFSET page is empty and sorts no record', async () => {
  const fresh = createApp({ readiness: {}, pool: recordingPool(db.pool, (s) => sent.push(s)), jwtSecret: JWT_SECRET, now: () => NOW, accountCacheMs: 0, readCacheMs: 0 });
  const token = await login(fresh, 'northEast');
  await db.pool.query(`update groups set deleted_at = now() where "GroupID" = 'north-east'`);
  try {
    for (const query of ['&filterBy[rssi][gte]=-200', '&filterBy[CurrentName][contains]=pole', '']) {
      const { page, statements } = await pageStatements(fresh, token, `/device-records/data-log?limit=${PAGE}&page=1${query}`);
      assert.equal(page.data, [], `${query}: nothing in reach`);
      assert.ok(statements.length > 0, `${query}: the page statement was sent`);
      for (const s of statements) {
        // Every record is out of reach: none may be sorted (a tiny table may still be walked rather than started
        // from the caller's no devices; at scale the probe form reads none).
        const { records, sorted } = await planReads(s);
        assert.is(sorted, 0, `${query}: the page sorted ${sorted} records of devices out of reach (read ${records}, ${SET_FORM.test(s.text) ? 'set' : 'probe'} form)`);
      }
    }
    // The size the app counted before the groups changed (a minute's cache) only chooses the form, never the answer.
    const { page } = await pageStatements(app, token, `/device-records/data-log?limit=${PAGE}&page=1`);
    assert.equal(page.data, [], 'a minute-old size of the reach: still nothing in reach');
  } finally {
    await db.pool.query(`update groups set deleted_at = null where "GroupID" = 'north-east'`);
  }
});

// South's group user reaches 3 of the fleet's 29 devices: the set walk steps over every other organisation's
// records to fill a page (at 150k check-ins and 2,000 other devices, a page of a 4-device organisation read 51k
// buffers for 254 probing), where the probe form lets the planner start from the caller's devices.
test('southEast, a small share of the fleet: OFFSET pages probe and answer the keyset chain\'s list', async () => {
  const token = await login(app, 'southEast');
  const offset = await byOffset(token, '');
  assert.ok(offset.ids.length > PAGE, `more than a page (${offset.ids.length})`);
  assert.equal(offset.ids, await byKeyset(token, ''), 'the OFFSET pages read what the keyset chain reads');
  const page = offset.deepStatements.filter((t) => t.includes('limit') && t.includes('offset'));
  assert.ok(page.length > 0 && !page.some((t) => SET_FORM.test(t)), 'a small share of the fleet probes');
});

// Found by the hostile review of the set form: fenced above the walk (offset 0) under the page's ORDER BY, the walk was
// planned for every row of the window, and where the planner takes the index for not all-visible (the month being
// written, before autovacuum) it chose reading the window whole and sorting it. In the walk itself the page's LIMIT
// keeps the index walk. Last, as it loads a month large enough for the planner to tell the two apart; the statistics
// are faked inside a transaction that is rolled back.
test('northAdmin: an OFFSET page with the set stays an index walk while the months look unvacuumed', async () => {
  await generateDeviceData(db.pool, { prefix: PREFIX, devices: DEVICES, first: 10_000, count: 60_000, months: [SPAN[2]!] });
  await db.pool.query('vacuum analyze device_records');
  const { rows: large } = await db.pool.query<{ name: string }>(`select relname as name from pg_class where relname like 'device_records_p%' and relkind = 'r' and reltuples > 10000`);
  assert.equal(large.map((r) => r.name), [`device_records_p${SPAN[2]!.replace('-', '')}`], 'the current month holds the load');
  const token = await login(app, 'northAdmin');
  // A week of the large month: the walk stops at the page, where reading the week whole would sort all of it.
  const day = (d: number) => `${SPAN[2]!.replace('-', '')}${String(d).padStart(2, '0')}`;
  const { statements } = await pageStatements(app, token, `/device-records/data-log?limit=${PAGE}&page=5&from=${day(2)}&to=${day(8)}`);
  const set = statements.filter((s) => SET_FORM.test(s.text));
  assert.ok(set.length > 0, 'the page took the set form');
  const client = await db.pool.connect();
  try {
    await client.query('begin');
    await client.query(`set local plan_cache_mode = force_generic_plan`);
    await client.query(`update pg_class set relallvisible = 0 where relname like 'device_records%'`);
    for (const s of set) {
      const { rows: [row] } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (format json) ${s.text}`, s.values);
      // The walk an ordered index scan; the rows looked up by key: both index scans. A Seq Scan or a Bitmap Heap Scan
      // reads the window whole, for a Sort.
      const reads: string[] = [];
      const visit = (n: PlanNode) => { if (large.some((l) => l.name === n['Relation Name'])) reads.push(n['Node Type']); n.Plans?.forEach(visit); };
      visit(row!['QUERY PLAN'][0].Plan);
      assert.ok(reads.length > 0 && reads.every((t) => t === 'Index Scan' || t === 'Index Only Scan'), `the month is walked by its index, not read whole to be sorted (${reads.join(', ')})`);
    }
  } finally {
    await client.query('rollback');
    client.release();
  }
});

test.run();
