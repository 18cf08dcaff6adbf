// Feeder incidents end to end (issue 22): topology imported with `faultline import`'s code, check-ins through
// the real stages (in-process transport, Postgres), the incident worker, the API, one MultiSpeak notification
// per incident delivered by the outbox worker to the zeep OMS (official WSDL), and the per power line DNP3
// points as an opendnp3 master (yadnp3) polls them from the DNP3 service over mutual TLS.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../../api/app.js';
import { LINE_ANALOG_POINTS, LINE_BINARY_POINTS } from '../../../dnp3/data/power-lines.js';
import { analogIndex, binaryIndex, localSlot } from '../../../dnp3/data/point-map.js';
import { startDnp3Service } from '../../../dnp3/service.js';
import { startIncidentWorker, type IncidentWorker } from '../../../incidents/worker.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../../multispeak/delivery/index.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { ImportError } from '../../../reference-data/errors.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { startTestPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { importDemoData, testKeyring } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { ensurePython } from '../../multispeak/python.js';
import { addIntegration } from '../multispeak/integrations.js';
import { checkInAt, IMEI, topologyFile, type Name } from './feeder.js';
import { startOms, type Oms } from '../multispeak/oms.js';
import { find, Yadnp3Master } from '../../../support/dnp3-master.js';
import { devCerts } from '../../helpers/dev-certs.js';

const test = suite('feeder incidents through the pipeline');
let db: TestDatabase;
let transport: Transport;
let pipe: TestPipeline;
let incidents: IncidentWorker;
let delivery: DeliveryWorker;
let oms: Oms;

const base = Date.now() - 30 * 60_000;
const checkIn = checkInAt(base);
const TOPOLOGY_FILE = topologyFile();

async function feed(...messages: { name: string; body: string }[]): Promise<void> {
  for (const m of messages) await pipe.feed([m]);
  await pipe.drain();
}

test.before(async () => {
  await ensurePython();
  db = await createTestDatabase('incidents');
  await importDemoData(db.pool);
  await db.pool.query(`update integrations set enabled = false where kind = 'multispeak'`);
  oms = await startOms();
  await addIntegration(db.pool, { id: 'per-incident', operation: 'ODEventNotification', version: '4.1', endpoint: oms.url, settings: { notifyPer: 'incident' } });
  await addIntegration(db.pool, { id: 'per-incident-30', operation: 'AssessmentLocationChangedNotification', version: '3.0', endpoint: oms.url, settings: { notifyPer: 'incident' } });
  transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  pipe = await startTestPipeline(transport, db.pool);
  incidents = startIncidentWorker({ pool: db.pool, windowMs: 120_000 }, { loop: false });
  delivery = startDeliveryWorker({ pool: db.pool, keyring: testKeyring(), backoff: { initialMs: 5, maxMs: 20 }, integrationsTtlMs: 0 }, { loop: false });
});
test.after(async () => {
  await pipe?.stop();
  await transport?.close();
  await oms?.stop();
  await db?.drop();
});

test('import: topology stored, importing again changes nothing, broken topologies refused naming the row', async () => {
  const first = await importReferenceData(db.pool, topologyFile());
  assert.is(first.devices.inserted, 6);
  const again = await importReferenceData(db.pool, topologyFile());
  assert.equal(again.devices, { inserted: 0, updated: 0, unchanged: 6 });
  const { rows } = await db.pool.query<{ IMEINumber: string; UpstreamIMEI: string | null; Phase: string; Section: string | null }>(
    `select "IMEINumber", "UpstreamIMEI", "Phase", "Section" from device_information where "PowerLineID" = 'north-F9' order by 1`);
  assert.equal(rows.find((r) => r.IMEINumber === IMEI.LA1), { IMEINumber: IMEI.LA1, UpstreamIMEI: IMEI.T1, Phase: 'A', Section: 'Lateral A' });
  const refused = async (file: unknown) => {
    try { await importReferenceData(db.pool, file); } catch (err) { if (err instanceof ImportError) return err.problems.map((p) => `${p.path}: ${p.message}`); throw err; }
    assert.unreachable('imported');
    return [];
  };
  // A loop made by a later file, against the stored feeder.
  const loop = await refused({ devices: [{ ...TOPOLOGY_FILE.devices[0], UpstreamIMEI: IMEI.LA2 }] });
  assert.ok(loop.some((p) => p.startsWith('devices[0].UpstreamIMEI: forms a loop')), loop.join('\n'));
  const twoHeads = await refused({ devices: [{ ...TOPOLOGY_FILE.devices[5], UpstreamIMEI: null }] });
  assert.ok(twoHeads.some((p) => p.includes('already has a head on phase B')), twoHeads.join('\n'));
  const otherLine = await refused({ devices: [{ ...TOPOLOGY_FILE.devices[5], PowerLineID: 'north-F12' }] });
  assert.ok(otherLine.some((p) => p.startsWith('devices[0].UpstreamIMEI:') && p.includes('"north-F9", not "north-F12"')), otherLine.join('\n'));
  const wrongPhase = await refused({ devices: [{ ...TOPOLOGY_FILE.devices[4], Phase: 'B' }] });
  assert.ok(wrongPhase.some((p) => p.startsWith('devices[0].Phase: B cannot hang below')), wrongPhase.join('\n'));
  assert.equal((await importReferenceData(db.pool, topologyFile())).devices.unchanged, 6, 'nothing of the refused files was written');
});

test('a permanent fault on lateral A: one incident, located between LA1 and LA2, one OMS notification naming the section', async () => {
  // Every indicator reports healthy first, so each can bound a section.
  await feed(...(Object.keys(IMEI) as Name[]).map((n) => checkIn(n, 0, 0)));
  await incidents.runOnce();
  // H and T1 trip first; LA1's trip arrives in a later batch of the same window.
  await feed(checkIn('H', 10, 4, [{ type: 'PFault', atMin: 9.5 }]), checkIn('T1', 10, 4, [{ type: 'PFault', atMin: 9.5 }]));
  await incidents.runOnce();
  let [incident] = (await db.pool.query('select * from incidents')).rows;
  assert.is(incident.status, 'located');
  assert.is(incident.sections[0].from.imei, IMEI.T1, 'first located below T1 (trunk)');
  await feed(checkIn('LA1', 10.2, 4, [{ type: 'PFault', atMin: 9.6 }]));
  await incidents.runOnce();
  const all = (await db.pool.query('select * from incidents')).rows;
  assert.is(all.length, 1, 'one incident');
  incident = all[0];
  assert.equal({ status: incident.status, kind: incident.kind, from: incident.sections[0].from.imei, to: incident.sections[0].to.map((e: { imei: string }) => e.imei), label: incident.sections[0].label },
    { status: 'located', kind: 'permanent', from: IMEI.LA1, to: [IMEI.LA2], label: 'Lateral A' });
  const whats = (await db.pool.query<{ what: string }>('select what from incident_timeline where incident_id = $1 order by id', [incident.id])).rows.map((r) => r.what);
  assert.equal(whats, ['opened', 'located', 'joined', 'section changed']);

  // Alarm routing hears once per incident and step, at the indicator naming the section.
  const alarms = (await db.pool.query<{ kind: string; IMEINumber: string }>(`select kind, "IMEINumber" from alarms where episode = $1 order by id`, [`incident:${incident.id}`])).rows;
  assert.equal(alarms.map((a) => a.kind), ['incident-opened', 'incident-located']);
  assert.is(alarms[1]!.IMEINumber, IMEI.T1, 'located first below T1');
  // No per-device notification for the incident integration; one per incident notice instead.
  const rows = (await db.pool.query<{ kind: string; IMEINumber: string; payload: { notice: string } }>(`select kind, "IMEINumber", payload from outbox where integration_id = 'per-incident' order by id`)).rows;
  assert.equal(rows.map((r) => [r.kind, r.IMEINumber, r.payload.notice]), [['incident', `incident-${incident.id}`, 'located'], ['incident', `incident-${incident.id}`, 'section changed']]);
  await waitFor('delivered', async () => (await delivery.runOnce()) === 0 && (await db.pool.query(`select 1 from outbox where integration_id like 'per-incident%' and delivered_at is null`)).rowCount === 0, { timeoutMs: 20_000 });
  const received = (await oms.received()).filter((r) => r.operation === 'ODEventNotification');
  assert.is(received.length, 2);
  for (const r of received) {
    assert.is(r.operation, 'ODEventNotification');
    assert.equal(r.schemaErrors, [], 'valid against the official schema');
  }
  const body = JSON.stringify(received[1]!.body);
  assert.match(body, 'Lateral A (phase A): below F9 LA1, above F9 LA2');
  assert.match(body, IMEI.LA1);
});

test('API: the list and one incident with devices, sections and timeline; a user sees only the devices of their groups', async () => {
  const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: new TextEncoder().encode('incident-test-secret-of-32-bytes-or-more!'), offlineAfterHours: 26, portalDir: null });
  const token = async (email: string, password: string) => ((await (await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })).json()) as { accessToken: string }).accessToken;
  const get = async (path: string, t: string) => app.request(path, { headers: { authorization: `Bearer ${t}` } });
  const admin = await token('admin@north.example', 'north-Admin-Pass-1');
  const east = await token('east@north.example', 'north-East-Pass-1');
  const south = await token('admin@south.example', 'south-Admin-Pass-1');

  const list = (await (await get('/api/incidents?status=active', admin)).json()) as { data: { id: number; status: string; trippedDevices: number; sections: unknown[] }[]; total: number };
  assert.is(list.total, 1);
  assert.is(list.data[0]!.trippedDevices, 3);
  const id = list.data[0]!.id;
  const one = (await (await get(`/api/incidents/${id}`, admin)).json()) as { devices: { IMEINumber: string }[]; timeline: { what: string }[]; sections: { label: string }[]; powerLineName: string };
  assert.equal(one.devices.map((d) => d.IMEINumber), [IMEI.H, IMEI.T1, IMEI.LA1]);
  assert.equal(one.timeline.map((t) => t.what), ['opened', 'located', 'joined', 'section changed']);
  assert.is(one.sections[0]!.label, 'Lateral A');
  assert.is(one.powerLineName, 'Feeder 9');

  // east@north reaches north-east: H, T1, LA1 are there.
  const byEast = (await (await get(`/api/incidents/${id}`, east)).json()) as { devices: unknown[] };
  assert.is(byEast.devices.length, 3);
  assert.is((await get(`/api/incidents/${id}`, south)).status, 404, 'another organisation: not found');
  assert.is(((await (await get('/api/incidents', south)).json()) as { total: number }).total, 0);
  const bad = await get('/api/incidents?status=burning', admin);
  assert.is(bad.status, 400);
  assert.match(await bad.text(), 'status');
  assert.is((await get('/api/incidents?color=red', admin)).status, 400);
  assert.is((await get('/api/incidents/abc', admin)).status, 404);

  // The power line's incident points are in the point map and the device profile the master is configured from.
  const map = (await (await get('/api/dnp3/pointMap', admin)).json()) as { points: { point: string; slot: number; type: string; index: number }[] };
  const linePoints = map.points.filter((p) => p.point.endsWith('on power line Feeder 9 (north-F9)'));
  assert.equal(linePoints.map((p) => p.point.split(' on power line')[0]).slice(0, 2), ['incident open', 'incident located']);
  assert.is(linePoints.length, 10);
  const profile = await (await get('/api/dnp3/deviceProfile', admin)).text();
  assert.match(profile, 'incident open on power line Feeder 9 (north-F9)');
  assert.match(profile, 'faulted section (slot + 1 of the indicator at its upstream end; 0 none) on power line Feeder 9 (north-F9)');
});

test('DNP3: an opendnp3 master polls the power line slot: incident open, the faulted section as the slot of LA1 + 1', async () => {
  const certs = devCerts('incidents-dnp3-');
  const service = await startDnp3Service({
    pool: db.pool, port: 0, host: '127.0.0.1', offlineAfterHours: 26,
    tlsFiles: certs.outstation,
  });
  const master = new Yadnp3Master(service.server.port, certs.master('north'));
  try {
    const slots = (await db.pool.query<{ IMEINumber: string | null; PowerLineID: string | null; slot: number }>(`select "IMEINumber", "PowerLineID", slot from dnp3_slots where "OrganizationID" = 'north'`)).rows;
    const line = slots.find((s) => s.PowerLineID === 'north-F9')!;
    const la1 = slots.find((s) => s.IMEINumber === IMEI.LA1)!;
    assert.ok(line, 'the power line has a slot');
    assert.is(slots.filter((s) => s.PowerLineID !== null).length, 1, 'only power lines with topology get one');
    const local = localSlot(line.slot);
    const open = LINE_BINARY_POINTS.find((p) => p.name === 'incident open')!;
    const section = LINE_ANALOG_POINTS[0]!;
    const polled = await master.startup(); // integrity poll
    assert.is(find(polled, 'binary', binaryIndex(local, open.k), false)!.value, true);
    assert.is(find(polled, 'analog', analogIndex(local, section.k), false)!.value, la1.slot + 1);
    assert.is(find(polled, 'analog', analogIndex(local, 1), false)!.value, la1.slot + 1, 'phase A');
    assert.is(find(polled, 'analog', analogIndex(local, 2), false)!.value, 0, 'phase B: nothing');

    // Current back on every tripped indicator: restored, and the master reads the binary's drop as an event.
    await feed(checkIn('H', 20, 0), checkIn('T1', 20, 0), checkIn('LA1', 20, 0));
    await incidents.runOnce();
    const [incident] = (await db.pool.query('select * from incidents')).rows;
    assert.is(incident.status, 'restored');
    assert.ok(incident.restored_at);
    await waitFor('the master reads the binary drop', async () => find(await master.command('events'), 'binary', binaryIndex(local, open.k), true)?.value === false, { timeoutMs: 10_000, intervalMs: 500 });
    assert.is(find(await master.command('integrity'), 'analog', analogIndex(local, section.k), false)!.value, 0);
  } finally {
    await master.stop();
    await service.close();
    certs.remove();
  }
  // The OMS hears the restoration once.
  await waitFor('delivered', async () => { await delivery.runOnce(); return (await db.pool.query(`select 1 from outbox where integration_id like 'per-incident%' and delivered_at is null`)).rowCount === 0; }, { timeoutMs: 20_000 });
  const all = await oms.received();
  const received = all.filter((r) => r.operation === 'ODEventNotification');
  // The same notices as AssessmentLocationChangedNotification in MultiSpeak 3.0, valid against that schema.
  const assessments = all.filter((r) => r.operation === 'AssessmentLocationChangedNotification');
  assert.equal(assessments.map((r) => [r.version, r.schemaErrors]), [['3.0', []], ['3.0', []], ['3.0', []]]);
  assert.match(JSON.stringify(assessments[1]!.body), 'Lateral A (phase A): below F9 LA1, above F9 LA2');
  assert.equal((await db.pool.query<{ n: string }>(`select payload->>'notice' as n from outbox where integration_id = 'per-incident' order by id`)).rows.map((r) => r.n), ['located', 'section changed', 'restored']);
  assert.is(received.length, 3);
  assert.match(JSON.stringify(received[2]!.body), 'Restoration');
});

test('closed one window after restoration; a later fault opens a new incident', async () => {
  const later = startIncidentWorker({ pool: db.pool, windowMs: 120_000, clock: () => new Date(Date.now() + 5 * 60_000) }, { loop: false });
  await later.runOnce();
  const [closed] = (await db.pool.query('select status, closed_at from incidents')).rows;
  assert.is(closed.status, 'closed');
  const alarms = (await db.pool.query<{ kind: string; cleared_at: Date | null }>(`select kind, cleared_at from alarms where episode like 'incident:%' order by id`)).rows;
  assert.equal(alarms.map((x) => x.kind), ['incident-opened', 'incident-located', 'incident-restored']);
  assert.ok(alarms.every((x) => x.cleared_at !== null), 'a closed incident ends its alarms');
  // Two faults at once on different laterals, momentary: one incident, two sections, restored at once.
  await feed(checkIn('H', 25, 2, [{ type: 'TFault', atMin: 24.5 }]), checkIn('T1', 25, 2, [{ type: 'TFault', atMin: 24.5 }]),
    checkIn('LA1', 25, 2, [{ type: 'TFault', atMin: 24.5 }]), checkIn('LB1', 25, 2, [{ type: 'TFault', atMin: 24.6 }]));
  await incidents.runOnce();
  const fresh = (await db.pool.query(`select * from incidents where status <> 'closed'`)).rows;
  assert.is(fresh.length, 1);
  assert.is(fresh[0].kind, 'momentary');
  assert.is(fresh[0].status, 'restored');
  assert.equal(fresh[0].sections.map((s: { from: { imei: string } }) => s.from.imei), [IMEI.LA1, IMEI.LB1]);
});

test('exactly once: two workers at once, fault events stored by several pipeline batches, each joins one incident once', async () => {
  const a = startIncidentWorker({ pool: db.pool, windowMs: 120_000 }, { loop: false });
  const b = startIncidentWorker({ pool: db.pool, windowMs: 120_000 }, { loop: false });
  await feed(checkIn('H', 40, 4, [{ type: 'PFault', atMin: 39.5 }]), checkIn('T1', 40, 4, [{ type: 'PFault', atMin: 39.5 }]), checkIn('T2', 40, 4, [{ type: 'PFault', atMin: 39.5 }]));
  const results = await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
  assert.ok(results.some((r) => !r.locked) || results.filter((r) => r.taken > 0).length === 1);
  const rows = (await db.pool.query(`select i.id, count(d.*)::int as n from incidents i join incident_devices d on d.incident_id = i.id where i.first_trip_at > $1 group by i.id`, [new Date(base + 39 * 60_000)])).rows;
  assert.equal(rows.map((r) => r.n), [3]);
  assert.is((await db.pool.query('select count(*)::int as n from incident_inbox')).rows[0].n, 0);
});

test.run();
