// The fleet read API (issue 44 point 2; docs/decisions.md#fleet-api-issue-44-fleet-api) over a database filled
// through the real stages (device_health_days written by persist) with assessment rows (support/fleet-assessment.ts).
// Every answer is checked against an independent recomputation: the rows read straight from the tables and
// the reach decided by the pure rule (domain/reach.ts mayRead), never by the API's SQL. A device moved between
// organisations shows the new one only its days from the move on, and no assessment made over older days.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mayRead, type ReachCaller, type ReachDevice } from '../../../domain/reach.js';
import { DEFAULT_FLOOR_S, expectedPerDay } from '../../../domain/checkin-clock.js';
import { histogramMedian } from '../../../fleet/health-day.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { fixtureText } from '../../../support/checkins.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { NOW, seededApi, USERS, type SeededApi, type UserName } from '../api/seeded-api.js';

const test = suite('fleet api');
let api: SeededApi;
const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
// A north device moved to south three days before NOW; its check-ins before and after carry markers.
const MOVED = '861000000000100';
const MOVE_AT = NOW - 3 * DAY;
const PRE = 'PREMOVE-FLEET-1';
const POST = 'POSTMOVE-FLEET-1';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function checkIn(imei: string, date: string, version: string, rssi: number): string {
  const base = JSON.parse(fixtureText('001-plain-checkin.json')) as { device_data: Record<string, unknown>; events: unknown[] };
  base.device_data = { ...base.device_data, IMEINumber: imei, date, version, rssi, Ongoing_fault: 0 };
  base.events = [];
  return JSON.stringify(base);
}

async function feed(messages: { name: string; body: string }[]): Promise<void> {
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, api.db.pool);
  try {
    for (const m of messages) { await pipe.feed([m]); await pipe.drain(); }
  } finally {
    await pipe.stop();
    await transport.close();
  }
}

async function facts(): Promise<{ devices: Map<string, ReachDevice>; callers: Record<UserName, ReachCaller> }> {
  const { rows } = await api.db.pool.query<Row>(`
    select d."IMEINumber" as imei, d."OrganizationID" as org, d.deleted_at is not null as deleted,
           array(select l."GroupID" from group_device_links l join groups g on g."GroupID" = l."GroupID" and g.deleted_at is null where l."DeviceID" = d."DeviceID") as groups,
           case when d."OrganizationSince" = '-infinity' then null else extract(epoch from d."OrganizationSince") * 1000 end as since
      from device_information d`);
  const devices = new Map(rows.map((r) => [r.imei as string, { org: r.org, deleted: r.deleted, groups: r.groups, organizationSince: r.since === null ? -Infinity : Number(r.since) }]));
  const callers = {} as Record<UserName, ReachCaller>;
  for (const [name, { email }] of Object.entries(USERS) as [UserName, { email: string }][]) {
    const { rows: [u] } = await api.db.pool.query<Row>(`select u."OrganizationID" as org, u.role, array(select ug."GroupID" from user_groups ug join groups g on g."GroupID" = ug."GroupID" and g.deleted_at is null where ug.user_id = u.id) as groups from users u where lower(u.email) = lower($1)`, [email]);
    callers[name] = u as ReachCaller;
  }
  return { devices, callers };
}

const getJson = async (path: string, user: UserName) => {
  const res = await api.get(path, user);
  const text = await res.text();
  assert.is(res.status, 200, `${user} ${path}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Row;
};

/** An assessment row is the new organisation's once its 30-day window starts at or after the move. */
const readable = (x: Row, device: ReachDevice) => x.assessed_at.getTime() - 30 * DAY >= device.organizationSince;

test.before(async () => {
  api = await seededApi();
  // The moved device's check-ins: two days before the move, and two after it.
  const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  await feed([
    { name: 'pre-a.json', body: checkIn(MOVED, at(MOVE_AT - 2 * DAY), PRE, -71) },
    { name: 'pre-b.json', body: checkIn(MOVED, at(MOVE_AT - 60_000), PRE, -72) },
    { name: 'post-a.json', body: checkIn(MOVED, at(MOVE_AT + 3_600_000), POST, -80) },
    { name: 'post-b.json', body: checkIn(MOVED, at(NOW - 3_600_000), POST, -81) },
  ]);
  // The move, as the import makes it (reference-data/upsert-devices.ts), at the test's clock.
  await api.db.pool.query(`update device_information set "OrganizationID" = 'south', "PowerLineID" = 'south-F7', "OrganizationSince" = $2 where "IMEINumber" = $1`, [MOVED, new Date(MOVE_AT)]);
  await api.db.pool.query(`delete from group_device_links l using device_information d where d."DeviceID" = l."DeviceID" and d."IMEINumber" = $1`, [MOVED]);
  await api.db.pool.query(`insert into group_device_links ("GroupID", "DeviceID") select 'south-east', "DeviceID" from device_information where "IMEINumber" = $1`, [MOVED]);
  // Its assessment made over the days before the move (still in the table), and drift seen then.
  await api.db.pool.query(`insert into device_health ("IMEINumber", assessed_at, history_days, expected_7d, received_7d, expected_30d, received_30d, signal, battery_status, firmware, model)
    values ($1, $2, 3, 10, 4, 10, 4, 'weak', 'ok', $3, 'M') on conflict ("IMEINumber") do update set firmware = excluded.firmware, assessed_at = excluded.assessed_at`, [MOVED, new Date(NOW), PRE]);
  await api.db.pool.query(`insert into device_drift ("IMEINumber", setting, expected, reported, since_day, assessed_at) values ($1, 'version', 'x', $3, $2::date, $2) on conflict do nothing`, [MOVED, new Date(NOW), PRE]);
});
test.after(async () => { await api?.close(); });

test('the seed holds what the fleet routes read (assessments, silence, drift, days)', async () => {
  for (const table of ['device_health_days', 'device_health', 'device_silence', 'device_drift']) {
    const { rows: [r] } = await api.db.pool.query<Row>(`select count(*)::int as n from ${table}`);
    assert.ok(r!.n > 0, `${table} has rows`);
  }
});

test('summary: every caller\'s counts equal a recomputation over the rows of its reach', async () => {
  const { devices, callers } = await facts();
  const health = (await api.db.pool.query<Row>('select * from device_health')).rows;
  const silence = (await api.db.pool.query<Row>('select * from device_silence')).rows;
  const drift = (await api.db.pool.query<Row>('select * from device_drift')).rows;
  const today = dayOf(NOW);
  const plus90 = dayOf(NOW + 90 * DAY);
  for (const user of Object.keys(USERS) as UserName[]) {
    const inReach = [...devices].filter(([, d]) => mayRead(callers[user], d));
    const mine = (rows: Row[]) => rows.filter((x) => inReach.some(([imei, d]) => imei === x.IMEINumber && readable(x, d)));
    const h = mine(health);
    const s = mine(silence);
    const sum = (f: (x: Row) => number) => h.reduce((a, x) => a + f(x), 0);
    const r7 = sum((x) => Math.min(x.received_7d, x.expected_7d)), e7 = sum((x) => x.expected_7d);
    const r30 = sum((x) => Math.min(x.received_30d, x.expected_30d)), e30 = sum((x) => x.expected_30d);
    const labels = ['never_commissioned', 'battery_exhausted', 'signal_decline', 'cluster', 'deenergised', 'unknown'];
    const firmware = new Map<string, number>();
    for (const x of h) firmware.set(JSON.stringify([x.model, x.firmware]), (firmware.get(JSON.stringify([x.model, x.firmware])) ?? 0) + 1);
    const expected = {
      devices: inReach.length, assessed: h.length,
      online7d: { received: r7, expected: e7, rate: e7 ? r7 / e7 : null, devices: h.length },
      online30d: { received: r30, expected: e30, rate: e30 ? r30 / e30 : null, devices: h.length },
      batteryEndWithin90d: h.filter((x) => x.battery_end_day !== null && dayOf(x.battery_end_day.getTime() - x.battery_end_day.getTimezoneOffset() * 60_000) <= plus90).length,
      signal: { weak: h.filter((x) => x.signal === 'weak').length, falling: h.filter((x) => x.signal === 'falling').length },
      firmwareByModel: [...firmware].map(([k, n]) => { const [model, fw] = JSON.parse(k) as [string | null, string | null]; return { model, firmware: fw, devices: n }; })
        .sort((a, b) => String(a.model ?? '\uffff').localeCompare(String(b.model ?? '\uffff')) || String(a.firmware ?? '\uffff').localeCompare(String(b.firmware ?? '\uffff'))),
      silentByLabel: Object.fromEntries(labels.map((l) => [l, s.filter((x) => x.label === l).length])),
      silent: s.length,
      drifting: new Set(mine(drift).map((x) => x.IMEINumber)).size,
    };
    assert.ok(today < plus90);
    const got = await getJson('/api/fleet/summary', user);
    assert.equal(got, expected, user);
    assert.ok(got.devices > 0, `${user} sees devices`);
  }
});

test('devices: every page together is the caller\'s reach; sorted and filtered as the rows say; totals count what pages hold', async () => {
  const { devices, callers } = await facts();
  for (const user of Object.keys(USERS) as UserName[]) {
    const want = [...devices].filter(([, d]) => mayRead(callers[user], d)).map(([imei]) => imei).sort();
    const got: string[] = [];
    for (let page = 0; ; page++) {
      const body = await getJson(`/api/fleet/devices?limit=2&page=${page}`, user);
      got.push(...(body.data as Row[]).map((r) => r.IMEINumber as string));
      assert.is(body.total, want.length, `${user} total`);
      if (body.data.length < 2) break;
    }
    assert.equal(got, want, `${user}: the pages hold exactly the devices in reach, by IMEI`);
  }
  // Sorted by the 7-day online rate, descending: the order of the rates the rows give (nulls first, as Postgres sorts desc).
  const list = (await getJson(`/api/fleet/devices?limit=500&sortBy=${encodeURIComponent('{"field":"onlineRate7d","order":"desc"}')}`, 'northAdmin')).data as Row[];
  const rates = list.map((r) => r.onlineRate7d as number | null);
  const ordered = [...rates].sort((a, b) => (a === null ? -1 : b === null ? 1 : b - a));
  assert.equal(rates, ordered);
  const { rows: truth } = await api.db.pool.query<Row>(`select "IMEINumber", least(received_7d, expected_7d)::float8 / nullif(expected_7d, 0) as r, signal from device_health`);
  for (const r of list) {
    const t = truth.find((x) => x.IMEINumber === r.IMEINumber);
    assert.is(r.onlineRate7d, t ? t.r : null, r.IMEINumber);
  }
  // Filtered by signal: exactly the rows whose assessment says weak.
  const weak = (await getJson(`/api/fleet/devices?limit=500&filterBy[signal]=weak`, 'northAdmin')).data as Row[];
  const weakTruth = list.filter((r) => r.signal === 'weak').map((r) => r.IMEINumber).sort();
  assert.ok(weakTruth.length > 0, 'some device has a weak signal');
  assert.equal(weak.map((r) => r.IMEINumber).sort(), weakTruth);
});

test('CSV: the same rows as the list, in its order and filters, streamed as text/csv', async () => {
  for (const user of ['northAdmin', 'southEast'] as const) {
    const list = (await getJson('/api/fleet/devices?limit=500&sortBy={"field":"batteryDaysLeft"}', user)).data as Row[];
    const res = await api.get('/api/fleet/devices.csv?sortBy={"field":"batteryDaysLeft"}', user);
    assert.is(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', 'text/csv');
    const lines = (await res.text()).trimEnd().split('\n');
    assert.is(lines[0], Object.keys(list[0]!).join(','));
    assert.equal(lines.slice(1).map((l) => l.split(',')[0]), list.map((r) => r.IMEINumber), user);
  }
});

test('CSV: a firmware version a device reports as a formula reaches the spreadsheet as text', async () => {
  const formula = '=HYPERLINK("http://evil.example/","update firmware")';
  const { rows: [h] } = await api.db.pool.query<Row>(`select h."IMEINumber", h.firmware from device_health h join device_information d using ("IMEINumber")
     where d."OrganizationID" = 'north' and d.deleted_at is null order by 1 limit 1`);
  await api.db.pool.query('update device_health set firmware = $2 where "IMEINumber" = $1', [h!.IMEINumber, formula]);
  try {
    const text = await (await api.get('/api/fleet/devices.csv', 'northAdmin')).text();
    const line = text.split('\n').find((l) => l.startsWith(h!.IMEINumber as string))!;
    assert.ok(line.includes(`"'=HYPERLINK(""http://evil.example/"",""update firmware"")"`), line);
    assert.not.ok(/(^|,)"?=/.test(line), 'no cell starts with a formula');
  } finally {
    await api.db.pool.query('update device_health set firmware = $2 where "IMEINumber" = $1', [h!.IMEINumber, h!.firmware]);
  }
});

test('health strip: each day equals the device\'s rollup row; outside reach is a 404', async () => {
  const { rows: [pick] } = await api.db.pool.query<Row>(`select x."IMEINumber" from device_health_days x join device_information d on d."IMEINumber" = x."IMEINumber"
     where d."OrganizationID" = 'north' and d."OrganizationSince" = '-infinity' and x.day > $1::date - 30 group by 1 order by count(*) desc, 1 limit 1`, [dayOf(NOW)]);
  const imei = pick!.IMEINumber as string;
  const body = await getJson(`/api/fleet/devices/${imei}/health`, 'northAdmin');
  assert.is(body.days.length, 30);
  assert.is(body.to, dayOf(NOW));
  const { rows } = await api.db.pool.query<Row>(`select *, day::text as day from device_health_days where "IMEINumber" = $1`, [imei]);
  const { rows: [clock] } = await api.db.pool.query<Row>('select expected_interval_s from checkin_clock where "IMEINumber" = $1', [imei]);
  let withRows = 0;
  for (const e of body.days as Row[]) {
    const r = rows.find((x) => x.day === e.day);
    assert.is(e.received, r ? r.received : 0, e.day);
    if (r) {
      withRows++;
      assert.is(e.rssiMedian, histogramMedian(r.rssi_values.map((v: number, i: number) => [v, r.rssi_counts[i]])), e.day);
      assert.is(e.firmware, r.version);
      assert.is(e.batteryMcuLast, r.battery_mcu_last);
    }
    const perDay = expectedPerDay(r?.interval_s ?? clock?.expected_interval_s ?? null, DEFAULT_FLOOR_S);
    const firstDay = rows.map((x) => x.day as string).sort()[0]!;
    if (e.day < firstDay) assert.equal([e.expected, e.missed], [null, null], `${e.day}: nothing expected before the first check-in`);
    else if (e.day < dayOf(NOW) && perDay !== null) assert.is(e.missed, Math.max(perDay - e.received, 0), e.day);
  }
  assert.ok(withRows > 0, 'the strip shows days with check-ins');
  assert.is((await api.get(`/api/fleet/devices/${imei}/health`, 'southAdmin')).status, 404);
  assert.is((await api.get('/api/fleet/devices/869999999999999/health', 'northAdmin')).status, 404);
});

test('a moved device: the new organisation reads its days from the move on and no assessment over older days; the old one reads nothing', async () => {
  const body = await getJson(`/api/fleet/devices/${MOVED}/health`, 'southEast');
  const text = JSON.stringify(body);
  assert.not.ok(text.includes(PRE), 'no day or assessment from before the move');
  assert.ok(text.includes(POST), 'the days after the move are there');
  assert.ok((body.days as Row[]).every((d) => d.day >= dayOf(MOVE_AT)), 'no entry before the move day');
  assert.is(body.health, null);
  assert.equal(body.drift, []);
  for (const path of ['/api/fleet/summary', '/api/fleet/devices?limit=500', '/api/fleet/devices.csv']) {
    const res = await api.get(path, 'southAdmin');
    assert.not.ok((await res.text()).includes(PRE), path);
  }
  assert.is((await api.get(`/api/fleet/devices/${MOVED}/health`, 'northAdmin')).status, 404);
  assert.not.ok(JSON.stringify(await getJson('/api/fleet/devices?limit=500', 'northAdmin')).includes(MOVED));
});

test('bad parameters: a 400 naming the parameter', async () => {
  const cases: [string, string][] = [
    ['/api/fleet/devices?sortBy={"field":"nope"}', 'sortBy'],
    ['/api/fleet/devices?filterBy[nope]=1', 'filterBy'],
    ['/api/fleet/devices?limit=0', 'limit'],
    ['/api/fleet/devices?page=-1', 'page'],
    ['/api/fleet/devices?colour=red', 'colour'],
    ['/api/fleet/summary?limit=5', 'limit'],
    ['/api/fleet/devices.csv?page=2', 'page'],
    [`/api/fleet/devices/${MOVED}/health?from=20240101&to=20261120`, 'from'],
    [`/api/fleet/devices/${MOVED}/health?from=20261120&to=20261101`, 'from'],
    [`/api/fleet/devices/${MOVED}/health?to=2026-11-01`, 'to'],
  ];
  for (const [url, parameter] of cases) {
    const res = await api.get(url, 'southAdmin');
    const body = (await res.json()) as { error: { message: string; details?: { parameter?: string } } };
    assert.is(res.status, 400, url);
    assert.ok(body.error.details?.parameter === parameter || body.error.message.includes(parameter), `${url}: ${JSON.stringify(body)}`);
  }
});

test.run();
