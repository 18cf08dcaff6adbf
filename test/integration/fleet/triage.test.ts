// Silent-device triage through the real pipeline (issue 44 point 4; docs/decisions.md#silent-device-triage):
// check-ins through Kafka and the schema registry into Postgres (device_information, checkin_clock,
// device_latest, device_health_days as persist and notify keep them), then the fleet worker's triage step
// (fleet-health/triage.ts) called directly at chosen instants, and the incident worker for a trip.
//   - feeder north-F9 (test/integration/incidents/feeder.ts): lateral A (LA1, LA2, line-powered) goes quiet while
//     the rest reports: one "possible de-energised section" naming LA1 and the devices below it, one alarm;
//   - lines north-K1 and north-K2, six line-powered indicators in one area, quiet in the same hour: the carrier,
//     a cluster across lines, no section;
//   - a battery indicator whose cells fall before it goes quiet; a registered device that never checked in.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../../api/app.js';
import { DEENERGISED_SECTION } from '../../../domain/alarm-kinds.js';
import { withTransaction } from '../../../db/transaction.js';
import { triageSilence } from '../../../fleet-health/triage.js';
import { startIncidentWorker } from '../../../incidents/worker.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { startKafkaRig, type KafkaRig } from '../../../support/pipeline.js';
import { JWT_SECRET, login, type UserName } from '../api/seeded-api.js';
import { IMEI, topologyFile } from '../incidents/feeder.js';
import { checkIn, every15, HOUR, MIN } from './quiet-feeder.js';

const test = suite('silent-device triage through the pipeline');
const LIMITS = { floorS: 300, ceilingS: 26 * 3600 };
// Device time: every instant below is in the past of the wall clock (the pipeline takes no future check-ins).
const B = Math.floor((Date.now() - 11 * HOUR) / MIN) * MIN;
const K = { K1H: '861000000007100', K1A: '861000000007110', K1B: '861000000007120', K2H: '861000000007200', K2A: '861000000007210', K2B: '861000000007220' };
const BATTERY = '861000000007900', NEVER = '861000000007950';
const F9_LIVE = [IMEI.H, IMEI.T1, IMEI.T2, IMEI.LB1];
const LATERAL = [IMEI.LA1, IMEI.LA2];
let rig: KafkaRig;
/** The demo organisations' devices (support/reference-data.ts): registered, never checked in. */
let demo: string[] = [];

async function feed(messages: { name: string; body: string }[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 200) await rig.pipe.feed(messages.slice(i, i + 200));
  await rig.pipe.drain(120_000);
}

const triage = (at: number) => withTransaction(rig.db.pool, (client) => triageSilence(client, new Date(at), LIMITS));
/** The rows of this suite's devices (the demo devices' aside). */
const silence = async () => Object.fromEntries((await rig.db.pool.query<{ IMEINumber: string; label: string; group_key: string | null }>(
  'select "IMEINumber", label, group_key from device_silence where "IMEINumber" <> all($1) order by 1', [demo])).rows.map((r) => [r.IMEINumber, [r.label, r.group_key]]));
const sections = async () => (await rig.db.pool.query<{ id: string; PowerLineID: string; point_imei: string; upstream_imei: string | null; label: string; status: string; closed_reason: string | null; devices: { imei: string }[] }>(
  'select id, "PowerLineID", point_imei, upstream_imei, label, status, closed_reason, devices from deenergised_sections order by id')).rows;
const sectionAlarms = async () => (await rig.db.pool.query<{ IMEINumber: string; episode: string; cleared: boolean; summary: string; raised: number }>(
  `select a."IMEINumber", a.episode, a.cleared_at is not null as cleared, a.detail->>'summary' as summary,
          (select count(*)::int from alarm_changes c where c.alarm_id = a.id and c.change = 'raised') as raised
     from alarms a where a.kind = $1 order by a.id`, [DEENERGISED_SECTION])).rows;

test.before(async () => {
  rig = await startKafkaRig('fleet-triage');
  demo = (await rig.db.pool.query<{ IMEINumber: string }>('select "IMEINumber" from device_information')).rows.map((r) => r.IMEINumber);
  const f9 = topologyFile();
  const k = (id: string, line: string, up: string | null, i: number) => ({
    IMEINumber: id, OrganizationID: 'north', PowerLineID: line, Real_Name: `${line} ${i}`, Lat: 44.5 + i * 0.004, Long: -88.0 + (line === 'north-K1' ? 0 : 0.01),
    groups: ['north-east'], dnp3QueueAddress: 'dnp3.north', UpstreamIMEI: up, Phase: 'ABC', Section: null,
  });
  await importReferenceData(rig.db.pool, {
    powerLines: [...f9.powerLines, { Id: 'north-K1', OrganizationID: 'north', name: 'Feeder K1' }, { Id: 'north-K2', OrganizationID: 'north', name: 'Feeder K2' }],
    devices: [
      ...f9.devices,
      k(K.K1H, 'north-K1', null, 0), k(K.K1A, 'north-K1', K.K1H, 1), k(K.K1B, 'north-K1', K.K1A, 2),
      k(K.K2H, 'north-K2', null, 3), k(K.K2A, 'north-K2', K.K2H, 4), k(K.K2B, 'north-K2', K.K2A, 5),
      { IMEINumber: BATTERY, OrganizationID: 'north', Real_Name: 'Battery one', Lat: 47.0, Long: -90.0, groups: ['north-east'], dnp3QueueAddress: 'dnp3.north' },
      { IMEINumber: NEVER, OrganizationID: 'north', Real_Name: 'Never one', Lat: 47.5, Long: -90.0, groups: ['north-east'], dnp3QueueAddress: 'dnp3.north' },
    ],
  });
  // The battery indicator: a check-in every six hours over five days, its cells falling 3.55 V -> 3.05 V.
  const battery = Array.from({ length: 17 }, (_, i) => checkIn(BATTERY, B - 5 * 24 * HOUR + i * 6 * HOUR, { BatteryOrLine: 1, BatteryMCU: 3.55 - (i * 0.5) / 16, BatteryLED: 3.6 }));
  await feed([...battery, ...every15([...F9_LIVE, ...LATERAL, ...Object.values(K)], B, B + 3 * HOUR), ...every15(F9_LIVE, B + 3 * HOUR + 15 * MIN, B + 6 * HOUR)]);
});
test.after(async () => { await rig?.stop(); });

test('a quiet lateral is one possible de-energised section naming its point; a carrier outage across lines is a cluster and none', async () => {
  const r = await triage(B + 6 * HOUR);
  const section = `deenergised:north-F9:${IMEI.LA1}`;
  const cluster = `cluster:${K.K1H}`;
  assert.equal(await silence(), {
    [IMEI.LA1]: ['deenergised', section], [IMEI.LA2]: ['deenergised', section],
    ...Object.fromEntries(Object.values(K).map((imei) => [imei, ['cluster', cluster]])),
    [BATTERY]: ['battery_exhausted', null], [NEVER]: ['never_commissioned', null],
  }, 'reporting devices have no row');
  const demoLabels = (await rig.db.pool.query<{ label: string }>('select distinct label from device_silence where "IMEINumber" = any($1)', [demo])).rows;
  assert.equal(demoLabels, [{ label: 'never_commissioned' }], 'the demo devices never checked in');
  assert.equal(r.sections.opened.length, 1);
  const [s, ...more] = await sections();
  assert.equal(more, [], 'none for the carrier outage on K1 and K2');
  assert.equal([s!.PowerLineID, s!.point_imei, s!.upstream_imei, s!.label, s!.status, s!.devices.map((d) => d.imei)], ['north-F9', IMEI.LA1, IMEI.T1, 'Lateral A', 'open', LATERAL]);
  const alarms = await sectionAlarms();
  assert.equal(alarms.map((a) => [a.IMEINumber, a.episode, a.cleared, a.raised]), [[IMEI.LA1, `deenergised:${s!.id}`, false, 1]]);
  assert.match(alarms[0]!.summary, /^Possible de-energised section Lateral A on Feeder 9: 2 line-powered indicators silent from F9 LA1 down since /);
  assert.is((await rig.db.pool.query('select count(*)::int as n from incidents')).rows[0].n, 0, 'no fault incident');

  // Read as the portal reads it: its own list (the map), an alarm row with its summary on the board, never an incident.
  const app = createApp({ readiness: {}, pool: rig.db.pool, jwtSecret: JWT_SECRET, portalDir: null });
  const get = async (path: string, user: UserName) => {
    const res = await app.request(path, { headers: { authorization: `Bearer ${await login(app, user)}` } });
    assert.is(res.status, 200, path);
    return (await res.json()) as { data: { point: { IMEINumber: string } | null; label: string; status: string; devices: { IMEINumber: string }[]; silentDevices: number }[] } & { items: { kind: string; summary: string | null; IMEINumber?: string }[] };
  };
  const listed = (await get('/api/deenergised-sections', 'northAdmin')).data;
  assert.equal(listed.map((x) => [x.point?.IMEINumber, x.label, x.status, x.devices.map((d) => d.IMEINumber), x.silentDevices]), [[IMEI.LA1, 'Lateral A', 'open', LATERAL, 2]]);
  const east = (await get('/api/deenergised-sections', 'northEast')).data;
  assert.equal(east.map((x) => [x.devices.map((d) => d.IMEINumber), x.silentDevices]), [[[IMEI.LA1], 2]], 'a group user sees the indicators in reach only');
  assert.equal((await get('/api/deenergised-sections', 'southAdmin')).data, [], 'another organisation sees none');
  const board = (await get('/api/board', 'northAdmin')).items.filter((i) => i.kind === DEENERGISED_SECTION);
  assert.equal(board.map((i) => [i.IMEINumber, i.summary]), [[IMEI.LA1, alarms[0]!.summary]], 'on the board as an alarm with its summary');
  assert.equal((await get('/api/incidents?status=active', 'northAdmin')).data, [], 'never among the fault incidents');

  // Triage again: the same rows, still one open section, the alarm raised once.
  const again = await triage(B + 6 * HOUR + 5 * MIN);
  assert.equal([again.sections.opened, again.sections.updated, again.sections.closed], [[], [Number(s!.id)], []]);
  assert.is((await sections()).length, 1);
  assert.equal((await sectionAlarms()).map((a) => a.raised), [1]);
});

test('the lateral checks in again: its devices lose their rows, the section closes, its alarm clears', async () => {
  await feed(every15([...F9_LIVE, ...LATERAL], B + 6 * HOUR + 15 * MIN, B + 7 * HOUR));
  const r = await triage(B + 7 * HOUR);
  const rows = await silence();
  assert.ok(!(IMEI.LA1 in rows) && !(IMEI.LA2 in rows), JSON.stringify(rows));
  assert.is(Object.keys(rows).length, 8, 'the carrier cluster, the battery and the never commissioned remain');
  assert.is(r.sections.closed.length, 1);
  const [s] = await sections();
  assert.equal([s!.status, s!.closed_reason], ['closed', 'its indicators report again']);
  assert.equal((await sectionAlarms()).map((a) => a.cleared), [true]);
});

test('a trip on the line opens a fault incident, never joins the de-energised section; triage then closes the section', async () => {
  // The lateral goes quiet again; the rest reports for three more hours: a second section (a new row, a new alarm).
  await feed(every15(F9_LIVE, B + 7 * HOUR + 15 * MIN, B + 10 * HOUR));
  const quiet = await triage(B + 10 * HOUR);
  assert.is(quiet.sections.opened.length, 1);
  const open = (await sections()).filter((s) => s.status === 'open');
  assert.is(open.length, 1);
  // A permanent fault trips H and T1 (the incident stage takes it from incident_inbox).
  await feed([IMEI.H, IMEI.T1].map((imei) => checkIn(imei, B + 10 * HOUR + 2 * MIN, {}, [{ type: 'PFault', at: B + 10 * HOUR + MIN }])));
  await startIncidentWorker({ pool: rig.db.pool }, { loop: false }).runOnce();
  const incidents = (await rig.db.pool.query<{ id: string; PowerLineID: string; kind: string; devices: string[] }>(
    `select i.id, i."PowerLineID", i.kind, array(select d."IMEINumber" from incident_devices d where d.incident_id = i.id order by 1) as devices from incidents i`)).rows;
  assert.equal(incidents.map((i) => [i.PowerLineID, i.kind, i.devices]), [['north-F9', 'permanent', [IMEI.H, IMEI.T1].sort()]], 'a fault incident of its own');
  assert.equal((await sections()).filter((s) => s.status === 'open'), open, 'the de-energised section is untouched by the incident stage');

  const after = await triage(B + 10 * HOUR + 5 * MIN);
  assert.equal(after.sections.closed, [Number(open[0]!.id)]);
  const closed = (await sections()).find((s) => s.id === open[0]!.id)!;
  assert.equal([closed.status, closed.closed_reason], ['closed', 'no longer reads as de-energised (indicators reporting again, or a trip on the line)']);
  assert.equal((await silence())[IMEI.LA1], ['unknown', null], 'the fault explains the silence now');
  assert.equal((await sectionAlarms()).map((a) => a.cleared), [true, true]);
});

test.run();
