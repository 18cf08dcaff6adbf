// Issue 28 "reach applied once": every GET route of the running app's OpenAPI document, and every SOAP
// operation, called as each fixture user (a group user and an admin of each organisation), over a database
// where one device moved from north to south. Any IMEI in an answer must be in the caller's reach as the
// pure rule (domain/reach.ts mayRead) computes it from the stored facts, and the moved device's records from
// before the move must not reach its new organisation, which does see those from the move on. Routes and
// operations are read from the app, so one added later is walked without editing this file. An incident on a
// line shared by two groups has sections bounded by indicators of the group a user is not in.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SERVED_OPERATIONS } from '../../../api/soap/operations.js';
import { mayRead, type ReachCaller, type ReachDevice } from '../../../domain/reach.js';
import { NAMESPACE } from '../../../multispeak/versions.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { fixtureText, importFixture } from '../../../support/checkins.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { testKeyring } from '../../../support/reference-data.js';
import { addIec104Integration, seededApi, USERS, type SeededApi, type UserName } from './seeded-api.js';

const test = suite('reach walk');
let api: SeededApi;

// North F7 pole, group north-east: moved to south, group south-east.
const MOVED = '861000000000100';
const NORTH_WEST = '861000000000400';
// North F7: Pole 43 in north-east, Pole 45 in north-west, Pole 47 deleted (outside every reach, an admin's too).
const NORTH_EAST = '861000000000300';
const F7_WEST = '861000000000500';
const F7_DELETED = '861000000000700';
const SOUTH_WEST = '861100000000400';
const UNREGISTERED = '869999999999999';
// Values only the moved device's records carry: before the move (version, event id, peak current) and after it.
const BEFORE = { version: 'PREMOVE-9.9', eventId: 7340019, peak: 733.125, date: '2026-11-22T10:00:00Z', alarm: 'PREMOVE-ALARM' };
const AFTER = { version: 'POSTMOVE-9.9', eventId: 7340020, peak: 744.375 };
let movedAt = 0;

function checkIn(imei: string, date: string, { version, eventId, peak }: { version: string; eventId: number; peak: number }): string {
  const base = JSON.parse(fixtureText('001-plain-checkin.json')) as { device_data: Record<string, unknown>; events: unknown[]; currents: Record<string, unknown> };
  base.device_data = { ...base.device_data, IMEINumber: imei, date, version, Ongoing_fault: 0 };
  const at = new Date(Date.parse(date) - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  base.currents = { ...base.currents, PeakCurrent: peak, PeakCurrentTimestamp: at };
  base.events = [{ EventID: eventId, EventTimestamp: at, EventType: 'TFault', PrefaultCurrent: 20, FaultCurrent: 300, RecoverCurrent: 10 }];
  return JSON.stringify(base);
}

async function feed(name: string, body: string): Promise<void> {
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, api.db.pool);
  try {
    await pipe.feed([{ name, body }]);
    await pipe.drain();
  } finally {
    await pipe.stop();
    await transport.close();
  }
}

/** What the alarm router, the incident stage and a test fault write, for devices of both organisations. */
async function seedOperations(): Promise<void> {
  const q = (sql: string, values: unknown[]) => api.db.pool.query(sql, values);
  for (const [org, imei, label] of [['north', MOVED, BEFORE.alarm], ['north', NORTH_WEST, 'west'], ['south', SOUTH_WEST, 'south west']] as const) {
    await q(`insert into alarms ("OrganizationID", "IMEINumber", kind, episode, detail, raised_at) values ($1, $2, 'offline', 'reach-walk', $3, $4)`,
      [org, imei, { label }, BEFORE.date]);
    await q(`insert into test_faults ("OrganizationID", "IMEINumber", started_by, started_at, fault_code, clear_due_at) values ($1, $2, 'reach-walk', $3, 4, $3)`,
      [org, imei, BEFORE.date]);
  }
  const { rows: [incident] } = await q(`insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, updated_at)
    values ('north', 'north-F7', 'open', 'unknown', $1, $1, $1, $1) returning id`, [BEFORE.date]);
  for (const imei of [MOVED, NORTH_WEST]) {
    await q(`insert into incident_devices (incident_id, "IMEINumber", "EventType", tripped_at) values ($1, $2, 'TFault', $3)`, [incident.id, imei, BEFORE.date]);
  }
  await q(`insert into incident_timeline (incident_id, at, what, detail) values ($1, $2, 'opened', $3)`,
    [incident.id, BEFORE.date, { trips: [{ imei: MOVED, at: BEFORE.date }, { imei: NORTH_WEST, at: BEFORE.date }] }]);
  // An incident north-east sees (a trip of NORTH_EAST) whose sections run to and from a north-west indicator
  // and over a deleted one: the feeder is shared, the groups are not (stored as incidents/step.ts stores them).
  const east = { imei: NORTH_EAST, name: 'North F7 Pole 43 Phase A' };
  const sections = [
    { phase: 'A', from: east, to: [{ imei: F7_WEST, name: null }], spans: [], label: `below ${east.name}` },
    { phase: 'C', from: { imei: F7_WEST, name: null }, to: [], spans: [{ imei: F7_DELETED, name: null, reason: 'offline' }], label: `below ${F7_WEST}` },
  ];
  const { rows: [shared] } = await q(`insert into incidents ("OrganizationID", "PowerLineID", status, kind, sections, first_trip_at, last_trip_at, opened_at, located_at, updated_at)
    values ('north', 'north-F7', 'located', 'unknown', $2, $1, $1, $1, $1, $1) returning id`, [BEFORE.date, JSON.stringify(sections)]);
  for (const imei of [NORTH_EAST, F7_WEST]) {
    await q(`insert into incident_devices (incident_id, "IMEINumber", "EventType", tripped_at) values ($1, $2, 'TFault', $3)`, [shared.id, imei, BEFORE.date]);
  }
  await q(`insert into incident_timeline (incident_id, at, what, detail) values ($1, $2, 'located', $3)`, [shared.id, BEFORE.date, { sections }]);
  // Silent-device triage (fleet-health/triage.ts) judged north-east's indicator silent in a possible de-energised
  // section whose point is north-west's, and in a carrier cluster keyed by it: the shared feeder again.
  const point = { imei: F7_WEST, name: 'North F7 Pole 45 Phase A' };
  await q(`insert into device_silence ("IMEINumber", silent_since, label, evidence, group_key, assessed_at) values ($1, $2, 'deenergised', $3, $4, now())
    on conflict ("IMEINumber") do update set label = excluded.label, evidence = excluded.evidence, group_key = excluded.group_key, assessed_at = excluded.assessed_at`,
  [NORTH_EAST, BEFORE.date, { powerLineId: 'north-F7', point, upstream: { imei: F7_DELETED, name: null }, section: `below ${F7_DELETED}`, devices: 2 }, `deenergised:north-F7:${F7_WEST}`]);
  // Its alarm on the board (raised on a north-east indicator), whose summary names the section by the deleted one.
  await q(`insert into alarms ("OrganizationID", "IMEINumber", kind, episode, "PowerLineID", detail, raised_at) values ('north', $1, 'deenergised-section', 'reach-walk', 'north-F7', $2, $3)`,
    [NORTH_EAST, { label: 'Possible de-energised section', upstream: { imei: F7_DELETED, name: null }, summary: `Possible de-energised section below ${F7_DELETED} on north-F7: 2 line-powered indicators silent` }, BEFORE.date]);
  await q(`insert into deenergised_sections ("OrganizationID", "PowerLineID", point_imei, upstream_imei, phase, label, devices, silent_since, status, opened_at, updated_at)
    values ('north', 'north-F7', $1, $2, 'A', $3, $4, $5, 'open', $5, $5)`,
  [F7_WEST, F7_DELETED, `below ${F7_DELETED}`, JSON.stringify([{ imei: NORTH_EAST, name: null, silentSince: BEFORE.date }, { imei: F7_WEST, name: null, silentSince: BEFORE.date }]), BEFORE.date]);
}

/** Moves MOVED to south through the real import (reference-data/upsert-devices.ts). */
async function moveDevice(): Promise<void> {
  const data = importFixture() as { devices: Record<string, unknown>[] };
  const device = data.devices.find((d) => d.IMEINumber === MOVED)!;
  Object.assign(device, { OrganizationID: 'south', PowerLineID: 'south-F7', groups: ['south-east'], dnp3QueueAddress: 'dnp3.south' });
  await importReferenceData(api.db.pool, data, { keyring: testKeyring() });
}

/** The facts the pure rule reads, from the database: every device (registered) and each user's live groups. */
async function facts(): Promise<{ devices: Map<string, ReachDevice>; callers: Record<UserName, ReachCaller> }> {
  const { rows } = await api.db.pool.query<{ imei: string; org: string; deleted: boolean; groups: string[]; since: number | null }>(`
    select d."IMEINumber" as imei, d."OrganizationID" as org, d.deleted_at is not null as deleted,
           array(select l."GroupID" from group_device_links l join groups g on g."GroupID" = l."GroupID" and g.deleted_at is null
                  where l."DeviceID" = d."DeviceID") as groups,
           case when d."OrganizationSince" = '-infinity' then null else extract(epoch from d."OrganizationSince") * 1000 end as since
      from device_information d`);
  const devices = new Map(rows.map((r) => [r.imei, { org: r.org, deleted: r.deleted, groups: r.groups, organizationSince: r.since === null ? -Infinity : Number(r.since) }]));
  const callers = {} as Record<UserName, ReachCaller>;
  for (const [name, { email }] of Object.entries(USERS) as [UserName, { email: string }][]) {
    const { rows: [u] } = await api.db.pool.query<{ org: string; role: 'admin' | 'user'; groups: string[] }>(`
      select u."OrganizationID" as org, u.role, array(select ug."GroupID" from user_groups ug join groups g on g."GroupID" = ug."GroupID" and g.deleted_at is null
                                                       where ug.user_id = u.id) as groups
        from users u where lower(u.email) = lower($1)`, [email]);
    callers[name] = u!;
  }
  return { devices, callers };
}

interface Operation { path: string; parameters: { name: string; in: string; schema?: { maximum?: number; enum?: string[] } }[] }

async function getOperations(): Promise<Operation[]> {
  const doc = (await (await api.app.request('/openapi.json')).json()) as { paths: Record<string, { get?: { parameters?: Operation['parameters'] } }> };
  return Object.entries(doc.paths).filter(([, ops]) => ops.get).map(([path, ops]) => ({ path, parameters: ops.get!.parameters ?? [] }));
}

/** Every URL to call for an operation: each value of each path parameter, the largest page, each enum value. */
async function urlsOf(op: Operation, imeis: readonly string[]): Promise<{ url: string; imei?: string }[]> {
  let paths: { url: string; imei?: string }[] = [{ url: op.path }];
  for (const param of op.parameters.filter((p) => p.in === 'path')) {
    const values = await pathValues(op.path, param.name, imeis);
    paths = paths.flatMap((p) => values.map((v) => ({ url: p.url.replace(`{${param.name}}`, encodeURIComponent(v)), imei: param.name === 'imei' ? v : p.imei })));
  }
  const query = op.parameters.filter((p) => p.in === 'query');
  const limit = query.find((p) => p.name === 'limit');
  const base = limit ? `limit=${limit.schema?.maximum ?? 100}` : '';
  const variants = [base, ...query.flatMap((p) => (p.schema?.enum ?? []).map((v) => [base, `${p.name}=${encodeURIComponent(v)}`].filter(Boolean).join('&')))];
  return paths.flatMap((p) => variants.map((v) => ({ ...p, url: v ? `${p.url}?${v}` : p.url })));
}

/** Values for a path parameter: every IMEI, or every id of the table the path names. Unknown: the walk fails. */
async function pathValues(path: string, name: string, imeis: readonly string[]): Promise<string[]> {
  if (name === 'imei') return [...imeis];
  const tables: Record<string, string> = { incidents: 'incidents', 'test-faults': 'test_faults', alarms: 'alarms' };
  const table = Object.entries(tables).find(([segment]) => path.includes(`/${segment}/{${name}}`))?.[1];
  if (name !== 'id' || !table) throw new Error(`the reach walk cannot fill path parameter {${name}} of ${path}: teach pathValues where its values come from`);
  const { rows } = await api.db.pool.query<{ id: string }>(`select id::text from ${table} order by id`);
  assert.ok(rows.length > 0, `seeded rows for ${path}`);
  return rows.map((r) => r.id);
}

const IMEI = /(?<!\d)86\d{13}(?!\d)/g;

function soapCall(operation: string, email: string, password: string): string {
  return `<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="${NAMESPACE['4.1']}">`
    + `<soap:Header><m:MultiSpeakMsgHeader MajorVersion="4" MinorVersion="1" BuildString="Release" UserID="${email}" Pwd="${password}"/></soap:Header>`
    + `<soap:Body><m:${operation}></m:${operation}></soap:Body></soap:Envelope>`;
}

test.before(async () => {
  api = await seededApi();
  await feed('reach-premove.json', checkIn(MOVED, BEFORE.date, BEFORE));
  await seedOperations();
  // Both organisations run an IEC 104 station, so its point map answers (without one it is a 404).
  for (const org of ['north', 'south']) await addIec104Integration(api.db, org);
});
test.after(async () => { await api?.close(); });

test('before the move, north reads the marked records, alarm and test fault (the markers show in answers)', async () => {
  const text = async (path: string, user: UserName) => { const res = await api.get(path, user); assert.is(res.status, 200, path); return res.text(); };
  assert.ok((await text(`/device-records/device-information/data-log/${MOVED}`, 'northEast')).includes(BEFORE.version));
  assert.ok((await text(`/device-records/device-information/events/${MOVED}`, 'northAdmin')).includes(String(BEFORE.eventId)));
  assert.ok((await text(`/device-records/device-information/load-history/${MOVED}`, 'northEast')).includes(String(BEFORE.peak)));
  assert.ok((await text('/api/alarms?state=all', 'northEast')).includes(BEFORE.alarm));
  assert.ok((await text('/api/test-faults', 'northAdmin')).includes(MOVED));
});

test('after the move, every GET route and SOAP operation keeps to each caller\'s reach, and south sees the moved device from the move on', async () => {
  movedAt = Date.now();
  await moveDevice();
  const { rows: [since] } = await api.db.pool.query<{ ms: number }>(`select extract(epoch from "OrganizationSince") * 1000 as ms from device_information where "IMEINumber" = $1`, [MOVED]);
  assert.ok(Number(since!.ms) >= movedAt - 5_000, 'the import set OrganizationSince at the move');
  const after = new Date(Date.now() + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  await feed('reach-postmove.json', checkIn(MOVED, after, AFTER));

  const { devices, callers } = await facts();
  const imeis = [...devices.keys(), UNREGISTERED];
  const operations = await getOperations();
  assert.ok(operations.length >= 30, `the document lists the GET routes (${operations.length})`);
  const seen: Record<UserName, string> = { northAdmin: '', northEast: '', southAdmin: '', southEast: '' };
  let calls = 0;

  for (const user of Object.keys(USERS) as UserName[]) {
    const caller = callers[user];
    const inReach = (imei: string) => mayRead(caller, devices.get(imei));
    for (const op of operations) {
      for (const { url, imei } of await urlsOf(op, imeis)) {
        const res = await api.get(url, user);
        calls++;
        const body = await res.text();
        if (imei !== undefined && res.status !== 403) {
          assert.is(res.status, inReach(imei) ? 200 : 404, `${user} GET ${url}: ${inReach(imei) ? 'in reach' : 'outside reach'}`);
        }
        if (res.status >= 300) continue;
        for (const found of body.match(IMEI) ?? []) assert.ok(inReach(found), `${user} GET ${url} names ${found}, outside the caller's reach`);
        if (caller.org === 'south') {
          assert.not.ok([BEFORE.version, String(BEFORE.eventId), String(BEFORE.peak), BEFORE.alarm].some((marker) => body.includes(marker)), `${user} GET ${url} shows the moved device's records from before its move`);
        }
        // A total must count what the caller can page through, not the device's earlier organisation's records.
        if (res.headers.get('content-type')?.includes('json')) {
          const json = JSON.parse(body) as { data?: unknown[]; total?: number; limit?: number };
          if (Array.isArray(json.data) && typeof json.total === 'number' && typeof json.limit === 'number' && json.data.length < json.limit && !/[?&]page=[1-9]/.test(url)) {
            assert.is(json.total, json.data.length, `${user} GET ${url}: total`);
          }
        }
        seen[user] += body;
      }
    }
    for (const operation of SERVED_OPERATIONS) {
      const res = await api.app.request('/soap', { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${operation}"` }, body: soapCall(operation, USERS[user].email, USERS[user].password) });
      const body = await res.text();
      calls++;
      assert.is(res.status, 200, `${user} SOAP ${operation}: ${body.slice(0, 300)}`);
      for (const found of body.match(IMEI) ?? []) assert.ok(inReach(found), `${user} SOAP ${operation} names ${found}, outside the caller's reach`);
      if (operation === 'GetAllSCADAPoints') {
        const expected = [...devices.keys()].filter(inReach).sort();
        assert.equal([...new Set(body.match(IMEI) ?? [])].sort(), expected, `${user} GetAllSCADAPoints lists exactly the devices in reach`);
      }
    }
  }
  assert.ok(calls > 500, `calls made: ${calls}`);
  // The walk reached the moved device where it should: south from the move on, north nowhere.
  for (const user of ['southAdmin', 'southEast'] as const) {
    assert.ok([AFTER.version, String(AFTER.eventId), String(AFTER.peak)].every((marker) => seen[user].includes(marker)), `${user} sees the moved device's records from the move on`);
  }
  for (const user of ['northAdmin', 'northEast'] as const) assert.not.ok(seen[user].includes(MOVED), `${user} no longer sees the moved device`);
});

test.run();
