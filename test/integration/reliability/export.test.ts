// Issue 43 item 3: the cause of an incident (recorded, audited, refused when not on the list) and the
// reliability export (GET /api/reliability/export) as CSV and as Parquet read by pyarrow, row for row equal to
// GET /api/incidents, in the caller's reach, and without the fault class for a masked organisation. Real
// Postgres; incidents written as the incident worker stores them, check-ins as persist stores them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPORT_COLUMNS } from '../../../api/reliability/export-columns.js';
import { DEFAULT_CAUSE_IDS } from '../../../domain/incident-causes.js';
import { namesFaultClass } from '../../../domain/fault-masking.js';
import { seededApi, type SeededApi, type UserName } from '../api/seeded-api.js';
import { ensurePyarrow, readWithPyarrow } from './pyarrow.js';

const test = suite('reliability export');
let api: SeededApi;
let dir: string;
const ids: Record<string, string> = {};
const WINDOW = 'from=20260101&to=20261231';

// North: 861000000000000 and ...100 are in north-east (the group user's), ...400 and ...500 in north-west.
const EAST_F12 = '861000000000000';
const EAST_F7 = '861000000000100';
const WEST_F12 = '861000000000400';
const WEST_F7 = '861000000000500';
const SECTION = { phase: 'A', from: { imei: EAST_F12, name: 'F12 head' }, to: [], spans: [], label: 'Lateral A' };

async function incident(key: string, org: string, line: string, kind: string, first: string, last: string, restored: string | null, trips: [string, string, string][], sections: unknown[] = []): Promise<void> {
  const { rows: [row] } = await api.db.pool.query<{ id: string }>(
    `insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, restored_at, sections, updated_at)
     values ($1, $2, $3, $4, $5, $6, $5, $7, $8, $5) returning id`,
    [org, line, restored ? 'restored' : sections.length ? 'located' : 'open', kind, first, last, restored, JSON.stringify(sections)]);
  ids[key] = String(row!.id);
  for (const [imei, type, at] of trips) {
    await api.db.pool.query('insert into incident_devices (incident_id, "IMEINumber", "EventType", tripped_at) values ($1, $2, $3, $4)', [row!.id, imei, type, at]);
  }
}

/** A stored check-in with only what the restore rule reads: its device time and ActualOngoingFault. */
async function checkIn(imei: string, date: string, actualOngoingFault: number): Promise<void> {
  await api.db.pool.query(`insert into device_records ("IMEINumber", "date", "Ongoing_fault", "ActualOngoingFault", "ReportedOngoingFault") values ($1, $2, $3, $3, $3)`,
    [imei, date, actualOngoingFault]);
}

const send = (method: string, path: string, user: UserName, body?: unknown) => api.app.request(path, {
  method, headers: { authorization: `Bearer ${api.tokens[user]}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

/** RFC 4180 text to rows of strings (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (ch === '"') quoted = false; else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(cell); cell = ''; } else if (ch === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; } else cell += ch;
  }
  return rows;
}

async function csvExport(user: UserName, query = WINDOW): Promise<{ header: string[]; rows: Record<string, string>[]; text: string }> {
  const res = await api.get(`/api/reliability/export?format=csv&${query}`, user);
  const text = await res.text();
  assert.is(res.status, 200, text.slice(0, 300));
  assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
  const [header, ...rows] = parseCsv(text);
  return { header: header!, rows: rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!]))), text };
}

async function parquetExport(user: UserName, query = WINDOW) {
  const res = await api.get(`/api/reliability/export?format=parquet&${query}`, user);
  assert.is(res.status, 200, res.status === 200 ? '' : await res.text());
  assert.is(res.headers.get('content-type'), 'application/vnd.apache.parquet');
  const file = join(dir, `${user}-${Math.random().toString(36).slice(2)}.parquet`);
  const bytes = Buffer.from(await res.arrayBuffer());
  writeFileSync(file, bytes);
  return { ...(await readWithPyarrow(file)), bytes };
}

interface ApiIncident { id: number; powerLineId: string; powerLineName: string | null; kind: string; status: string; firstTripAt: string; lastTripAt: string; sections: { label: string; phase: string }[]; trippedDevices: number; cause: string | null; majorEvent: boolean }

/** GET /api/incidents, every page, in the export's window (first trip in 2026, north's zone is America/Chicago). */
async function apiIncidents(user: UserName): Promise<ApiIncident[]> {
  const res = await api.get('/api/incidents?limit=500', user);
  assert.is(res.status, 200);
  const { data, total } = (await res.json()) as { data: ApiIncident[]; total: number };
  assert.is(data.length, total);
  const from = Date.parse('2026-01-01T06:00:00Z');
  const until = Date.parse('2027-01-01T06:00:00Z');
  return data.filter((i) => Date.parse(i.firstTripAt) >= from && Date.parse(i.firstTripAt) < until).sort((a, b) => a.id - b.id);
}

/** What the export must say of an incident the API lists, in the export's columns, as text. */
const expectedOf = (i: ApiIncident) => ({
  incidentId: String(i.id), powerLineId: i.powerLineId, powerLineName: i.powerLineName ?? '', kind: i.kind, status: i.status,
  firstTripAt: i.firstTripAt, lastTripAt: i.lastTripAt, sections: i.sections.map((s) => `${s.label} (phase ${s.phase})`).join('; '),
  sectionCount: String(i.sections.length), indicatorCount: String(i.trippedDevices), cause: i.cause ?? '', majorEvent: String(i.majorEvent),
});
const pick = (row: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, row[k] === null || row[k] === undefined ? '' : String(row[k])]));

test.before(async () => {
  await ensurePyarrow();
  dir = mkdtempSync(join(tmpdir(), 'rel-export-'));
  api = await seededApi({ feed: false, app: { accountCacheMs: 0 } });
  await api.db.pool.query(`update device_information set "OrganizationSince" = '-infinity'`);
  // The import's optional customers of the stretch below an indicator (migration 0026): known for F12's head only.
  await api.db.pool.query(`update device_information set "SectionCustomers" = 120 where "IMEINumber" = $1`, [EAST_F12]);
  // Permanent on F12, two laterals' worth of trips (one in each north group), restored when both reported clean.
  await incident('permanent', 'north', 'north-F12', 'permanent', '2026-03-10T10:00:00Z', '2026-03-10T10:00:05Z', '2026-03-10T11:00:00Z',
    [[EAST_F12, 'PFault', '2026-03-10T10:00:00Z'], [WEST_F12, 'PFault', '2026-03-10T10:00:05Z']], [SECTION]);
  await checkIn(EAST_F12, '2026-03-10T10:10:00Z', 1); // still faulted: not the restore
  await checkIn(EAST_F12, '2026-03-10T10:20:00Z', 0);
  await checkIn(WEST_F12, '2026-03-10T10:45:00Z', 10); // Current Reset counts as current back
  await checkIn(WEST_F12, '2026-03-10T12:00:00Z', 0);
  await incident('momentary', 'north', 'north-F7', 'momentary', '2026-03-11T08:00:00Z', '2026-03-11T08:00:30Z', '2026-03-11T08:01:00Z',
    [[EAST_F7, 'TFault', '2026-03-11T08:00:00Z'], [WEST_F7, 'TFault', '2026-03-11T08:00:30Z']]);
  await incident('unknown', 'north', 'north-F7', 'unknown', '2026-03-12T08:00:00Z', '2026-03-12T08:00:00Z', null, [[WEST_F7, 'Overcurrent', '2026-03-12T08:00:00Z']]);
  await incident('before', 'north', 'north-F12', 'permanent', '2025-12-01T08:00:00Z', '2025-12-01T08:00:00Z', null, [[EAST_F12, 'PFault', '2025-12-01T08:00:00Z']]);
  await incident('south', 'south', 'south-F12', 'permanent', '2026-03-10T10:00:00Z', '2026-03-10T10:00:00Z', null, [['861100000000000', 'PFault', '2026-03-10T10:00:00Z']]);
});
test.after(async () => { await api?.close(); if (dir) rmSync(dir, { recursive: true, force: true }); });

test('an operator records a cause; every record is kept with who and when, the newest is the cause', async () => {
  const list = (await (await send('GET', '/api/incident-causes', 'northEast')).json()) as { data: { id: string }[]; configured: boolean };
  assert.equal(list.data.map((c) => c.id), [...DEFAULT_CAUSE_IDS]);
  assert.is(list.configured, false);
  let res = await send('POST', `/api/incidents/${ids.permanent}/cause`, 'northEast', { cause: 'vegetation' });
  assert.is(res.status, 200, await res.clone().text());
  res = await send('POST', `/api/incidents/${ids.permanent}/cause`, 'northAdmin', { cause: 'equipment', majorEvent: true, note: 'cracked insulator, pole 14' });
  assert.is(res.status, 200);
  const detail = (await (await api.get(`/api/incidents/${ids.permanent}`, 'northEast')).json()) as { cause: string; majorEvent: boolean; causeHistory: { cause: string; majorEvent: boolean; note: string | null; setBy: string; setAt: string }[] };
  assert.is(detail.cause, 'equipment');
  assert.is(detail.majorEvent, true);
  assert.equal(detail.causeHistory.map((h) => [h.cause, h.majorEvent, h.note, h.setBy]), [
    ['equipment', true, 'cracked insulator, pole 14', 'admin@north.example'],
    ['vegetation', false, null, 'east@north.example'],
  ]);
  assert.ok(detail.causeHistory.every((h) => !Number.isNaN(Date.parse(h.setAt))));
  assert.is((await send('POST', `/api/incidents/${ids.momentary}/cause`, 'northEast', { cause: 'animal' })).status, 200);
});

test('a cause not on the list, a bad body, or an incident outside the reach is refused, naming the problem; nothing is recorded', async () => {
  const count = async () => Number((await api.db.pool.query('select count(*) as n from incident_cause_changes')).rows[0].n);
  const before = await count();
  let res = await send('POST', `/api/incidents/${ids.permanent}/cause`, 'northEast', { cause: 'gremlins' });
  let body = (await res.json()) as { error: { code: string; message: string; details: { problems: { field: string }[] } } };
  assert.is(res.status, 400);
  assert.is(body.error.code, 'INVALID_BODY');
  assert.match(body.error.message, 'cause "gremlins" is not on the organisation\'s list: one of vegetation, equipment');
  res = await send('POST', `/api/incidents/${ids.permanent}/cause`, 'northEast', { cause: 'animal', majorEvent: 'yes', colour: 'red' });
  body = (await res.json()) as typeof body;
  assert.is(res.status, 400);
  assert.equal(body.error.details.problems.map((p) => p.field).sort(), ['colour', 'majorEvent']);
  // The unknown-kind incident tripped only a north-west indicator: outside the group user's reach, and south's.
  assert.is((await send('POST', `/api/incidents/${ids.unknown}/cause`, 'northEast', { cause: 'animal' })).status, 404);
  assert.is((await send('POST', `/api/incidents/${ids.permanent}/cause`, 'southAdmin', { cause: 'animal' })).status, 404);
  assert.is((await send('POST', '/api/incidents/x1/cause', 'northAdmin', { cause: 'animal' })).status, 404);
  assert.is(await count(), before);
});

test('an organisation\'s admins set its own list (a user may not); a cause naming a fault class is refused', async () => {
  assert.is((await send('PUT', '/api/incident-causes', 'northEast', { causes: ['trees'] })).status, 403);
  let res = await send('PUT', '/api/incident-causes', 'northAdmin', { causes: ['trees', 'permanent-damage'] });
  assert.is(res.status, 400);
  assert.match(((await res.json()) as { error: { message: string } }).error.message, 'causes[1] names a fault class');
  res = await send('PUT', '/api/incident-causes', 'southAdmin', { causes: ['trees', 'birds', 'unknown'] });
  assert.is(res.status, 200);
  assert.is((await send('POST', `/api/incidents/${ids.south}/cause`, 'southAdmin', { cause: 'vegetation' })).status, 400);
  assert.is((await send('POST', `/api/incidents/${ids.south}/cause`, 'southAdmin', { cause: 'birds' })).status, 200);
  // North keeps the default list.
  assert.is((await send('POST', `/api/incidents/${ids.unknown}/cause`, 'northAdmin', { cause: 'weather' })).status, 200);
});

test('the CSV has the documented columns and one row per incident of the window, equal to GET /api/incidents', async () => {
  for (const user of ['northAdmin', 'northEast'] as const) {
    const { header, rows } = await csvExport(user);
    assert.equal(header, EXPORT_COLUMNS.map((c) => c.name));
    const listed = await apiIncidents(user);
    assert.ok(listed.length >= (user === 'northAdmin' ? 3 : 2), `${user}: ${listed.length} incidents listed`);
    assert.equal(rows.map((r) => pick(r, Object.keys(expectedOf(listed[0]!)))), listed.map(expectedOf), user);
  }
  const admin = (await csvExport('northAdmin')).rows;
  assert.equal(admin.map((r) => r.incidentId), [ids.permanent, ids.momentary, ids.unknown]);
  const permanent = admin[0]!;
  // Restored by device time: the later of each tripped indicator's first check-in without a fault after its trip.
  assert.equal(pick(permanent, ['restoredAt', 'durationSeconds', 'indicators', 'sectionCustomers', 'cause', 'causeNote', 'causeSetBy', 'majorEvent']), {
    restoredAt: '2026-03-10T10:45:00.000Z', durationSeconds: '2700', indicators: `${EAST_F12} ${WEST_F12}`, sectionCustomers: '120', cause: 'equipment',
    causeNote: 'cracked insulator, pole 14', causeSetBy: 'admin@north.example', majorEvent: 'true',
  });
  // Not located: no section, so no customers.
  assert.equal(pick(admin[1]!, ['restoredAt', 'durationSeconds', 'sectionCustomers', 'cause']), { restoredAt: '2026-03-11T08:00:30.000Z', durationSeconds: '30', sectionCustomers: '', cause: 'animal' });
  assert.equal(pick(admin[2]!, ['restoredAt', 'durationSeconds', 'majorEvent']), { restoredAt: '', durationSeconds: '', majorEvent: 'false' });
  // The group user: only the incidents and indicators of the user's groups.
  const east = (await csvExport('northEast')).rows;
  assert.equal(east.map((r) => [r.incidentId, r.indicators]), [[ids.permanent, EAST_F12], [ids.momentary, EAST_F7]]);
  // The window selects on the first trip's device day in the caller's zone.
  assert.equal((await csvExport('northAdmin', 'from=20251201&to=20251201')).rows.map((r) => r.incidentId), [ids.before]);
});

test('the Parquet file, read by pyarrow, has the documented columns and types and the CSV\'s rows', async () => {
  const ARROW_TYPES: Record<string, string> = { int64: 'int64', int32: 'int32', double: 'double', text: 'string', bool: 'bool', timestamp: 'timestamp[us, tz=UTC]' };
  for (const user of ['northAdmin', 'northEast'] as const) {
    const parquet = await parquetExport(user);
    assert.equal(parquet.columns, EXPORT_COLUMNS.map((c) => ({ name: c.name, type: ARROW_TYPES[c.kind]! })));
    const csv = (await csvExport(user)).rows;
    const asText = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? '' : typeof v === 'boolean' ? String(v) : String(v)]));
    assert.equal(parquet.rows.map(asText), csv, user);
    const listed = await apiIncidents(user);
    assert.equal(parquet.rows.map((r) => pick(r, Object.keys(expectedOf(listed[0]!)))), listed.map(expectedOf), user);
  }
});

test('a large export is written in row groups of 1,000 as it is read, and an empty one is a valid file', async () => {
  await api.db.pool.query(`insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, updated_at)
    select 'south', 'south-F7', 'open', 'momentary', t, t, t, t from generate_series(1, 2500) n, lateral (select timestamptz '2026-06-01T00:00:00Z' + n * interval '1 minute' as t) x`);
  const parquet = await parquetExport('southAdmin', 'from=20260601&to=20260630');
  assert.is(parquet.rows.length, 2500);
  assert.is(parquet.rowGroups, 3);
  const csv = await csvExport('southAdmin', 'from=20260601&to=20260630');
  assert.is(csv.rows.length, 2500);
  const empty = await parquetExport('northAdmin', 'from=20200101&to=20200102');
  assert.is(empty.rows.length, 0);
  assert.equal(empty.columns.map((c) => c.name), EXPORT_COLUMNS.map((c) => c.name));
});

test('a masked organisation\'s CSV streams: its first chunk arrives while later rows are still to be read (review M2)', async () => {
  // 4,500 incidents of June (the 2,500 above and 2,000 more): five batches of 1,000, read one by one as the client takes them.
  await api.db.pool.query(`insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, updated_at)
    select 'south', 'south-F7', 'open', 'momentary', t, t, t, t from generate_series(1, 2000) n, lateral (select timestamptz '2026-06-10T00:00:00Z' + n * interval '1 minute' as t) x`);
  await api.db.pool.query(`update organizations set "MaskFaultDetails" = true where "OrganizationID" = 'south'`);
  try {
    const res = await api.get('/api/reliability/export?format=csv&from=20260601&to=20260630', 'southAdmin');
    assert.is(res.status, 200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.not.ok(first.done);
    // Written after the first chunk was received: a stream still reading its batches exports it (its id is the
    // highest, so in the last batch); an answer read whole before it was sent cannot.
    const { rows: [late] } = await api.db.pool.query<{ id: string }>(`insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, updated_at)
      values ('south', 'south-F7', 'open', 'permanent', '2026-06-20T00:00:00Z', '2026-06-20T00:00:00Z', '2026-06-20T00:00:00Z', '2026-06-20T00:00:00Z') returning id`);
    const chunks = [first.value!];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    const text = Buffer.concat(chunks).toString('utf8');
    const [header, ...rows] = parseCsv(text);
    assert.equal(header, EXPORT_COLUMNS.map((c) => c.name));
    assert.is(rows.length, 4501);
    assert.is(rows[rows.length - 1]![0], String(late!.id), 'the incident written after the first chunk is the last row');
    assert.ok(chunks.length > 2, `${chunks.length} chunks`);
    assert.ok(first.value!.length < text.length / 2, 'the first chunk is a part of the answer, not the whole');
    // Still masked as it passed: no class word in the rows, every kind reads as fault.
    assert.not.ok(namesFaultClass(text));
    assert.equal([...new Set(rows.map((r) => r[header!.indexOf('kind')]))], ['fault']);
  } finally {
    await api.db.pool.query(`update organizations set "MaskFaultDetails" = false where "OrganizationID" = 'south'`);
  }
});

test('bad parameters are a 400 naming the parameter', async () => {
  for (const [query, parameter] of [['format=xlsx', 'format'], ['from=2026-01-01', 'from'], ['from=20260301&to=20260201', 'from'], ['to=20261399', 'to'], ['since=20260101', 'since'], ['format=csv&format=parquet', 'format']] as const) {
    const res = await api.get(`/api/reliability/export?${query}`, 'northAdmin');
    const body = (await res.json()) as { error: { message: string; details: { parameter: string } } };
    assert.is(res.status, 400, query);
    assert.is(body.error.details.parameter, parameter, query);
    assert.match(body.error.message, `"${parameter}"`, query);
  }
  assert.is((await api.get('/api/reliability/export', null)).status, 401);
});

test('a masked organisation\'s CSV and Parquet name no fault class: every kind reads as fault', async () => {
  const classWords = (texts: string[]) => texts.filter((t) => namesFaultClass(t));
  // Unmasked first: the same exports show the classes, so the masked check can fail.
  await api.db.pool.query(`update incidents set sections = jsonb_build_array(jsonb_build_object('phase', 'A', 'from', jsonb_build_object('imei', $2::text, 'name', null), 'to', '[]'::jsonb, 'spans', '[]'::jsonb, 'label', 'Permanent lateral'))
     where id = $1`, [ids.momentary, EAST_F7]);
  const unmasked = await parquetExport('northAdmin');
  assert.equal(unmasked.rows.map((r) => r.kind), ['permanent', 'momentary', 'unknown']);
  assert.ok(classWords((await csvExport('northAdmin')).rows.flatMap(Object.values)).length > 0);
  await api.db.pool.query(`update organizations set "MaskFaultDetails" = true where "OrganizationID" = 'north'`);
  try {
    for (const user of ['northAdmin', 'northEast'] as const) {
      const csv = await csvExport(user);
      assert.ok(csv.rows.length >= 2);
      assert.equal([...new Set(csv.rows.map((r) => r.kind))], ['fault'], user);
      // Restoration at the last trip is the momentary rule: a masked organisation's rows never show it.
      const momentary = csv.rows.find((r) => Number(r.incidentId) === Number(ids.momentary));
      assert.ok(momentary, `${user}: the momentary incident is exported`);
      assert.not.equal(momentary.restoredAt, momentary.lastTripAt, `${user}: restoredAt names the momentary incident`);
      assert.equal(classWords([csv.text]), [], user);
      const parquet = await parquetExport(user);
      assert.equal(parquet.rows.map((r) => r.kind), csv.rows.map(() => 'fault'), user);
      assert.equal(classWords(parquet.rows.flatMap((r) => Object.values(r).map(String))), [], user);
      assert.not.ok(namesFaultClass(parquet.bytes.toString('latin1')), `${user}: the file's bytes`);
    }
  } finally {
    await api.db.pool.query(`update organizations set "MaskFaultDetails" = false where "OrganizationID" = 'north'`);
  }
});

test.run();
