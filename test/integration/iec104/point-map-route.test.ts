// GET /api/iec104/pointMap and GET /api/iec104/interoperability (issue 33 point 3) on the real database with the
// fixture devices and their check-ins fed through the real stages, through the app's own auth (real tokens,
// the fault mask policy). The map's addresses are compared with the ones a station fed from the same database
// serves (Iec104Outstation applied the snapshots and power lines as the service does).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyDevice, applyPowerLine } from '../../../iec104/data/apply.js';
import { Iec104Outstation } from '../../../iec104/outstation.js';
import { loadPowerLines } from '../../../points/power-lines.js';
import { loadSnapshots, maxSlot } from '../../../points/store.js';
import { seededApi, type SeededApi } from '../api/seeded-api.js';

const MAP = '/api/iec104/pointMap';
const INTEROP = '/api/iec104/interoperability';
let api: SeededApi;

interface Row { bank: number; commonAddress: number; ioa: number; kind: string; interrogationType: string; spontaneousType: string | null; group: number; point: string; slot: number | null; imei: string | null; deviceName: string | null; deadband: number | null }
interface Map104 { organizationId: string; integrationId: string; commonAddress: number; heartbeatIoa: number; banks: { bank: number; commonAddress: number }[]; points: Row[] }

async function json<T>(path: string, user: Parameters<SeededApi['get']>[1] = 'northAdmin'): Promise<T> {
  const res = await api.get(path, user);
  assert.is(res.status, 200, `${path}: ${res.status}`);
  return await res.json() as T;
}

function parseCsv(text: string): Record<string, string>[] {
  const lines = text.trimEnd().split('\r\n');
  const cells = (line: string) => [...line.matchAll(/("([^"]|"")*"|[^,]*)(,|$)/g)].slice(0, -1).map((m) => m[1]!.startsWith('"') ? m[1]!.slice(1, -1).replaceAll('""', '"') : m[1]!);
  const head = cells(lines[0]!);
  return lines.slice(1).map((l) => Object.fromEntries(cells(l).map((v, i) => [head[i]!, v])));
}

test.before(async () => {
  // Account cache off: the masking test switches MaskFaultDetails between requests.
  api = await seededApi({ app: { accountCacheMs: 0 } });
  // North: an iec104 integration at common address 5 beside its DNP3 one; south has none.
  await api.db.pool.query(`insert into integrations (id, "OrganizationID", kind, channel, settings) values ('north-104', 'north', 'iec104', 'A', $1)`,
    [{ masterIdentity: 'scada104.north.example', commonAddress: 5, k: 20, w: 10, t1: 16, port: 12404 }]);
});
test.after(async () => { await api?.close(); });

test('JSON: every point at the address and type the station serves it at, from the same slots as the DNP3 map', async () => {
  const map = await json<Map104>(MAP);
  assert.equal([map.organizationId, map.integrationId, map.commonAddress, map.heartbeatIoa], ['north', 'north-104', 5, 100000]);
  assert.equal(map.banks.map((b) => [b.bank, b.commonAddress]), [[0, 5]]);
  const dnp3 = await json<{ points: { type: string; index: number; slot: number | null; imei: string | null; point: string }[] }>('/api/dnp3/pointMap');
  // The same points (slot, kind, meaning), one for one.
  const key = (kind: string, slot: number | null, point: string) => `${kind} ${slot} ${point}`;
  assert.equal(map.points.filter((p) => p.slot !== null).map((p) => key(p.kind, p.slot, p.point)).sort(), dnp3.points.filter((p) => p.slot !== null).map((p) => key(p.type, p.slot, p.point)).sort());

  // A station fed from the same database, as the service feeds it.
  const station = new Iec104Outstation(5);
  const now = Date.now();
  station.sizeBanks(await maxSlot(api.db.pool, 'north'));
  for (const s of await loadSnapshots(api.db.pool, 'north')) applyDevice(station, s, now, { floorS: 300, ceilingS: 26 * 3600 }, false);
  for (const l of await loadPowerLines(api.db.pool, 'north')) applyPowerLine(station, l, now, false);
  station.heartbeat(1, now);
  const served = station.image.commonAddresses().flatMap((ca) => station.image.points(ca).map((p) => `${ca}/${p.ioa} ${p.kind}`));
  assert.ok(served.length > 100, `${served.length} points served`);
  const listed = new Set(map.points.map((p) => `${p.commonAddress}/${p.ioa} ${p.kind}`));
  for (const s of served) assert.ok(listed.has(s), `the station serves ${s}; the map lists it`);
  // Every device that checked in has all its points served; the map lists nothing else for it.
  const checkedIn = new Set(served.map((s) => s.split(' ')[0]));
  const reported = map.points.filter((p) => p.imei !== null && checkedIn.has(`${p.commonAddress}/${p.ioa}`));
  assert.ok(reported.length >= 16, 'devices with check-ins');
  for (const p of map.points) {
    assert.is(p.interrogationType, p.kind === 'binary' ? 'M_SP_NA_1' : 'M_ME_NC_1');
    assert.is(p.group, p.kind === 'binary' ? 1 : 2);
    if (p.ioa !== 100000) assert.is(p.spontaneousType, p.kind === 'binary' ? 'M_SP_TB_1' : 'M_ME_TF_1');
  }
  const heartbeat = map.points.find((p) => p.ioa === 100000)!;
  assert.equal([heartbeat.spontaneousType, heartbeat.slot, heartbeat.deadband], [null, null, null]);
  assert.is(map.points.find((p) => p.point === 'AverageCurrent1m')!.deadband, 1);
});

test('CSV (?format=csv or Accept: text/csv) holds the JSON rows, cell for cell', async () => {
  const map = await json<Map104>(MAP);
  const res = await api.get(`${MAP}?format=csv`, 'northAdmin');
  assert.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.match(res.headers.get('content-disposition') ?? '', 'iec104-point-map-north-104.csv');
  const text = await res.text();
  assert.is(await (await api.get(MAP, 'northAdmin', { accept: 'text/csv' })).text(), text);
  const rows = parseCsv(text);
  assert.is(rows.length, map.points.length);
  rows.forEach((r, i) => {
    const p = map.points[i]!;
    for (const [k, v] of Object.entries(r)) assert.is(v, p[k as keyof Row] === null ? '' : String(p[k as keyof Row]), `row ${i} ${k}`);
  });
});

test('reach: each organisation\'s admin sees its own devices only; a group user is refused', async () => {
  await api.db.pool.query(`insert into integrations (id, "OrganizationID", kind, channel, settings) values ('south-104', 'south', 'iec104', 'A', $1)`, [{ masterIdentity: 'scada104.south.example' }]);
  try {
    const north = await json<Map104>(MAP);
    const south = await json<Map104>(MAP, 'southAdmin');
    const orgOf = async (org: string) => new Set((await api.db.pool.query<{ imei: string }>(`select "IMEINumber" as imei from device_information where "OrganizationID" = $1 and deleted_at is null`, [org])).rows.map((r) => r.imei));
    const [northImeis, southImeis] = [await orgOf('north'), await orgOf('south')];
    assert.equal(new Set(north.points.flatMap((p) => (p.imei ? [p.imei] : []))), northImeis);
    assert.equal(new Set(south.points.flatMap((p) => (p.imei ? [p.imei] : []))), southImeis);
    assert.is(south.commonAddress, 1);
    for (const path of [MAP, INTEROP]) assert.is((await api.get(path, 'northEast')).status, 403, path);
  } finally {
    await api.db.pool.query(`delete from integrations where id = 'south-104'`);
  }
});

test('no iec104 integration: 404 with a sentence; an unknown parameter or format: 400 naming it', async () => {
  for (const path of [MAP, INTEROP]) {
    const none = await api.get(path, 'southAdmin');
    const body = await none.json() as { error: { code: string; message: string } };
    assert.equal([none.status, body.error.code], [404, 'NOT_FOUND'], path);
    assert.match(body.error.message, 'no enabled IEC 104 integration');
    const unknown = await api.get(`${path}?bank=0`, 'northAdmin');
    assert.equal([unknown.status, (await unknown.json() as { error: { code: string } }).error.code], [400, 'UNKNOWN_PARAMETER'], path);
    const format = await api.get(`${path}?format=xml`, 'northAdmin');
    assert.equal([format.status, (await format.json() as { error: { details: { parameter: string } } }).error.details.parameter], [400, 'format'], path);
  }
});

test('interoperability list: the integration\'s running configuration, as JSON and Markdown', async () => {
  const list = await json<{ integrationId: string; sections: { clause: string; items: { item: string; value?: string }[]; parameters?: { name: string; value: number }[] }[] }>(INTEROP);
  assert.is(list.integrationId, 'north-104');
  const params = Object.fromEntries(list.sections.find((s) => s.clause === '9.7')!.parameters!.map((p) => [p.name, p.value]));
  assert.equal(params, { k: 20, w: 10, t0: 30, t1: 16, t2: 10, t3: 20 });
  assert.match(list.sections.find((s) => s.clause === '9.7')!.items.find((i) => i.item === 'Port number')!.value!, '12404');
  assert.match(list.sections.find((s) => s.clause === '9.5')!.items.find((i) => i.item.startsWith('Common address of ASDU: two'))!.value!, /^5;/);
  const md = await api.get(`${INTEROP}?format=markdown`, 'northAdmin');
  assert.is(md.headers.get('content-type'), 'text/markdown; charset=utf-8');
  const text = await md.text();
  assert.ok(text.startsWith('# IEC 60870-5-104 interoperability list'));
  assert.ok(text.includes('| k | 20 frames | 12 frames |'));
});

test('a masked organisation: an integration key reads the point map unmasked, the admin\'s login masked (docs/decisions.md#integration-keys-and-the-mask)', async () => {
  const created = await api.app.request('/api/integration-keys', { method: 'POST', headers: { authorization: `Bearer ${api.tokens.northAdmin}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'IEC 104 master' }) });
  const { key } = await created.json() as { key: string };
  await api.db.pool.query(`update organizations set "MaskFaultDetails" = true where "OrganizationID" = 'north'`);
  try {
    const byKey = await api.app.request(MAP, { headers: { authorization: `Bearer ${key}` } });
    assert.ok((await byKey.text()).includes('permanent fault'));
    const byAdmin = await api.app.request(MAP, { headers: { authorization: `Bearer ${api.tokens.northAdmin}` } });
    const text = await byAdmin.text();
    assert.is(byAdmin.status, 200);
    assert.not.ok(/permanent fault/i.test(text), 'the login reads no class');
  } finally {
    await api.db.pool.query(`update organizations set "MaskFaultDetails" = false where "OrganizationID" = 'north'`);
  }
});

test.run();
