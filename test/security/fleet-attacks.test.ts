// Fleet health (issue 44) attacked by a hostile party: another organisation, a group user of limited reach, a
// hostile device (docs/decisions.md#review-of-fleet-health-as-a-hostile-party). On the real Postgres: check-ins
// through persist (stages/persist/, which keeps the daily rollup), the fleet worker's steps called directly at a
// chosen "now", and the API (api/app.ts) reading what they wrote.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Temporal } from 'temporal-polyfill';
import { withTransaction } from '../../db/transaction.js';
import { parseQueueMessage } from '../../domain/validate-message.js';
import { assessDrift } from '../../fleet-health/drift.js';
import { assessHealth } from '../../fleet-health/assess.js';
import { triageSilence } from '../../fleet-health/triage.js';
import { organisationFleetSummary } from '../../api/fleet/summary.js';
import { messageBody, messageText, type AlarmPayload } from '../../domain/alarm-message.js';
import { importReferenceData } from '../../reference-data/index.js';
import { persistBatch } from '../../stages/persist/index.js';
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';
import { startTestPipeline } from '../../support/pipeline.js';
import { every15, MIN } from '../integration/fleet/quiet-feeder.js';
import { computed } from '../../support/checkins.js';
import { emptyTally, reportTally, type Tally } from '../helpers/tally.js';
import { seededApi, type SeededApi } from '../integration/api/seeded-api.js';

const test = suite('fleet health as a hostile party');
const tally: Tally = emptyTally();
const HOUR = 3_600_000, DAY = 24 * HOUR;
const LIMITS = { floorS: 300, ceilingS: 26 * 3600 };
// A north device moved to south at MOVE; the worker's steps run 31 days later, once the 30-day window of an
// assessment lies after the move (fleet-health/read-scope.ts), so its rows are south's to read.
const MOVED = '861000000000600';
const MOVE = Date.parse('2026-10-01T00:00:00Z');
const MOVE_DAY = '2026-10-01';
const NOW = MOVE + 31 * DAY;
let api: SeededApi;
let n = 0;

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A check-in of `imei` at `ms` with `fields`, validated as the enrich stage does, as persist receives it. */
function checkIn(imei: string, ms: number, fields: Record<string, unknown>) {
  const date = new Date(ms).toISOString();
  const parsed = parseQueueMessage(JSON.stringify({ device_data: { IMEINumber: imei, date, Ongoing_fault: 0, model: 'FCI-3000', ...fields } }), { now: Temporal.Instant.fromEpochMilliseconds(ms + 60_000) });
  if (!parsed.ok) throw new Error(parsed.reason);
  return computed(parsed.value, { messageId: `fleet-attack-${++n}` });
}

const steps = (at: number) => withTransaction(api.db.pool, async (client) => {
  await assessHealth(client, new Date(at));
  await triageSilence(client, new Date(at), LIMITS);
  await assessDrift(client, new Date(at));
});

async function getJson(path: string, user: 'southAdmin' | 'northAdmin' | 'southEast' | 'northEast'): Promise<Row> {
  const res = await api.get(path, user);
  const text = await res.text();
  assert.is(res.status, 200, `${user} ${path}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Row;
}

/** Every YYYY-MM-DD day named anywhere in `value` (dates and date-times alike). */
const daysNamed = (value: unknown): string[] => JSON.stringify(value).match(/\b\d{4}-\d{2}-\d{2}/g) ?? [];

test.before(async () => {
  api = await seededApi({ feed: false, app: { now: () => NOW } });
  // The moved device: a battery indicator reporting every three hours, ten days in north (cells flat at 3.6 V, a
  // firmware north's people know it by), then a day in south (cells falling to 3.0 V), then silent.
  const pre = Array.from({ length: 80 }, (_, i) => checkIn(MOVED, MOVE - 10 * DAY + i * 3 * HOUR, { version: 'NORTH-ONLY-7', BatteryOrLine: 1, BatteryMCU: 3.6, BatteryLED: 3.6, rssi: -70 }));
  const post = Array.from({ length: 8 }, (_, i) => checkIn(MOVED, MOVE + HOUR + i * 3 * HOUR, { version: 'SOUTH-SEEN-7', BatteryOrLine: 1, BatteryMCU: 3.3 - i * 0.04, BatteryLED: 3.3, rssi: -71 }));
  await persistBatch(api.db.pool, pre);
  // Assessed while still north's, under a north profile expecting the same firmware: a drift dated in north's time
  // that a later run could carry on (fleet/settings-drift.ts `before`).
  await api.db.pool.query(`update groups set "FirmwareVersion" = '4.3.0' where "GroupID" = 'north-west'`);
  await steps(MOVE - HOUR);
  // The move as the import makes it (reference-data/upsert-devices.ts), dated MOVE; south's group has a profile.
  await api.db.pool.query(`update device_information set "OrganizationID" = 'south', "PowerLineID" = null, "OrganizationSince" = $2, "LastCheckInTime" = null where "IMEINumber" = $1`, [MOVED, new Date(MOVE)]);
  await api.db.pool.query(`delete from group_device_links l using device_information d where d."DeviceID" = l."DeviceID" and d."IMEINumber" = $1`, [MOVED]);
  await api.db.pool.query(`insert into group_device_links ("GroupID", "DeviceID") select 'south-west', "DeviceID" from device_information where "IMEINumber" = $1`, [MOVED]);
  await api.db.pool.query(`update groups set "FirmwareVersion" = '4.3.0' where "GroupID" = 'south-west'`);
  await persistBatch(api.db.pool, post);
});
test.after(async () => {
  reportTally('fleet health: hostile tenants, users and devices', tally);
  await api?.close();
});

test('a moved device: its triage evidence and its drift name no day of the organisation it left', async () => {
  tally.attacksTried++;
  await steps(NOW);
  const body = await getJson(`/api/fleet/devices/${MOVED}/health`, 'southAdmin');
  assert.ok(body.silence, 'the silent device has its triage');
  assert.ok(body.drift.length > 0, 'its firmware drifts from south\'s profile');
  const before = [...daysNamed(body.silence), ...daysNamed(body.drift), ...daysNamed(body.health)].filter((d) => d < MOVE_DAY);
  assert.equal(before, [], `south reads no day before the move: ${JSON.stringify({ silence: body.silence, drift: body.drift })}`);
  assert.not.ok(JSON.stringify(body).includes('NORTH-ONLY-7'));
  tally.attacksRefused++;
});

test('a device\'s firmware string in the fleet digest: no line of its own in the e-mail, bounded in every copy of the summary', async () => {
  // A north device reports a version that writes a fake portal link on a line of its own, and one of 200 KB.
  const LURE = '4.3.0\r\nPortal: https://evil.example/fleet\n\nAll devices OK';
  const HUGE = `9.${'9'.repeat(200_000)}`;
  await persistBatch(api.db.pool, [
    checkIn('861000000000400', NOW - 2 * HOUR, { version: LURE, BatteryOrLine: 0 }),
    checkIn('861000000000500', NOW - 2 * HOUR, { version: HUGE, BatteryOrLine: 0 }),
  ]);
  await steps(NOW);
  const fleet = await organisationFleetSummary(api.db.pool as never, 'north', new Date(NOW));
  const payload: AlarmPayload = { type: 'fleet-digest', alarmId: null, OrganizationID: 'north', every: 'daily', from: '2026-10-31', to: '2026-10-31', fleet, link: 'https://portal.example/fleet' };
  tally.attacksTried++;
  const body = messageBody(payload);
  const portalLines = body.split(/\r\n|\r|\n/).filter((l) => /^\s*Portal:/.test(l));
  assert.equal(portalLines, ['Portal: https://portal.example/fleet'], `one Portal line, the service's: ${JSON.stringify(portalLines)}`);
  assert.not.ok([...body].some((c) => c !== "\n" && /\p{Cc}/u.test(c)), 'no control character but the line feed');
  tally.attacksRefused++;
  tally.attacksTried++;
  for (const [what, text] of [['e-mail body', body], ['SMS text', messageText(payload)], ['summary (API and webhook)', JSON.stringify(fleet)],
    ['fleet list', JSON.stringify(await getJson('/api/fleet/devices?limit=500', 'northAdmin'))],
    ['fleet CSV', await (await api.get('/api/fleet/devices.csv', 'northAdmin')).text()],
    ['day strip', JSON.stringify(await getJson('/api/fleet/devices/861000000000500/health', 'northAdmin'))]] as const) {
    assert.ok(text.length < 20_000, `${what}: ${text.length} characters for a fleet of eight`);
  }
  tally.attacksRefused++;
});

test('held: a group user asking for a device outside reach, and hostile list parameters', async () => {
  // South-east's user: a south-west device, a north device and an IMEI nobody has answer alike (no oracle).
  const answers = [];
  for (const imei of ['861100000000400', '861000000000400', '869999999999999']) {
    tally.attacksTried++;
    const res = await api.get(`/api/fleet/devices/${imei}/health`, 'southEast');
    answers.push([res.status, JSON.stringify(await res.json()).replace(imei, 'X')]);
    if (res.status === 404) tally.attacksRefused++;
  }
  assert.equal(new Set(answers.map((a) => JSON.stringify(a))).size, 1, JSON.stringify(answers));
  const list = await getJson('/api/fleet/devices?limit=500', 'southEast');
  assert.ok((list.data as Row[]).every((d) => ['861100000000000', '861100000000100', '861100000000200', '861100000000300'].includes(d.IMEINumber)), 'only south-east devices');
  for (const q of ['limit=100000000', 'limit=-1', 'limit=NaN', 'page=1e9', 'sortBy={"field":"IMEINumber;drop table devices","order":"asc"}',
    'filterBy[IMEINumber][eq]=861000000000400\'%20or%201=1--', 'filterBy[firmware][contains]=%25', 'sortBy={"field":"onlineRate7d","order":"sideways"}']) {
    tally.attacksTried++;
    const res = await api.get(`/api/fleet/devices?${q}`, 'southEast');
    const text = await res.text();
    assert.not.ok(/861000|861100000000[4-7]|select |stack/i.test(text), `${q}: ${text.slice(0, 200)}`);
    if (res.status === 400 || (res.status === 200 && (JSON.parse(text).data as unknown[]).length === 0)) tally.attacksRefused++;
    else assert.unreachable(`${q}: ${res.status} ${text.slice(0, 200)}`);
  }
  for (const q of ['from=1970-01-01&to=2099-12-31', 'from=2026-13-40', 'to=99999-01-01']) {
    tally.attacksTried++;
    const res = await api.get(`/api/fleet/devices/861100000000000/health?${q}`, 'southEast');
    assert.is(res.status, 400, q);
    tally.attacksRefused++;
  }
});

test('a power line given to another organisation with devices of the first still on it: triage keeps each organisation\'s sections and verdicts its own', async () => {
  // Feeder L9 of north: head H reporting; below it P, with R and Q below P, line-powered. An import giving the line
  // to south with Q (the file's only device) would leave H, P and R, north's, on it: refused.
  const L = { H: '861200000000010', P: '861200000000020', R: '861200000000030', Q: '861200000000040' };
  const device = (imei: string, org: string, up: string | null, i: number) => ({
    IMEINumber: imei, OrganizationID: org, PowerLineID: 'north-L9', Real_Name: `L9 ${i}`, Lat: 45.1 + i * 0.001, Long: -89.1,
    groups: [`${org}-east`], dnp3QueueAddress: `dnp3.${org}`, UpstreamIMEI: up, Phase: 'ABC', Section: null,
  });
  await importReferenceData(api.db.pool, {
    powerLines: [{ Id: 'north-L9', OrganizationID: 'north', name: 'Feeder L9' }],
    devices: [device(L.H, 'north', null, 0), device(L.P, 'north', L.H, 1), device(L.R, 'north', L.P, 2), device(L.Q, 'north', L.P, 3)],
  });
  tally.attacksTried++;
  const refusal = await importReferenceData(api.db.pool, { powerLines: [{ Id: 'north-L9', OrganizationID: 'south', name: 'Feeder L9' }], devices: [device(L.Q, 'south', L.P, 3)] })
    .then(() => null, (err: Error & { problems?: { path: string; message: string }[] }) => JSON.stringify(err.problems ?? err.message));
  assert.ok(refusal?.includes('still has 3 device(s) of organization'), `the import is refused, naming what stays: ${refusal}`);
  tally.attacksRefused++;

  // Such a line as an import before that check left it: triage must still judge each organisation on its own devices.
  tally.attacksTried++;
  await api.db.pool.query(`update power_lines set "OrganizationID" = 'south' where "Id" = 'north-L9'`);
  await api.db.pool.query(`update device_information set "OrganizationID" = 'south' where "IMEINumber" = $1`, [L.Q]);
  const B = Math.floor((Date.now() - 11 * HOUR) / MIN) * MIN;
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, api.db.pool);
  try {
    const messages = [...every15([L.H, L.P, L.R, L.Q], B, B + 3 * HOUR), ...every15([L.H], B + 3 * HOUR + 15 * MIN, B + 6 * HOUR)];
    for (let i = 0; i < messages.length; i += 50) { await pipe.feed(messages.slice(i, i + 50)); await pipe.drain(); }
  } finally {
    await pipe.stop();
    await transport.close();
  }
  await withTransaction(api.db.pool, (client) => triageSilence(client, new Date(B + 6 * HOUR), LIMITS));
  const { rows: sections } = await api.db.pool.query<{ OrganizationID: string; devices: { imei: string }[] }>(
    `select "OrganizationID", devices from deenergised_sections where "PowerLineID" = 'north-L9' and status = 'open'`);
  const orgOf = new Map(Object.values(L).map((imei) => [imei, imei === L.Q ? 'south' : 'north']));
  for (const s of sections) assert.ok(s.devices.every((d) => orgOf.get(d.imei) === s.OrganizationID), `a section holds only its organisation's devices: ${JSON.stringify(s)}`);
  const { rows: [q] } = await api.db.pool.query<{ evidence: object; group_key: string | null }>('select evidence, group_key from device_silence where "IMEINumber" = $1', [L.Q]);
  assert.ok(q, 'south\'s silent device has its triage');
  assert.not.ok(JSON.stringify(q).includes(L.P), `south's device is not judged with north's section: ${JSON.stringify(q)}`);
  tally.attacksRefused++;
});

test('held: an admin cannot take another organisation\'s recipient id, nor name a recipient of its own for another organisation, to read its fleet digest', async () => {
  const put = async (user: 'northAdmin' | 'southAdmin', id: string, body: Record<string, unknown>) => {
    const res = await api.app.request(`/api/alarm-recipients/${id}`, {
      method: 'PUT', headers: { authorization: `Bearer ${api.tokens[user]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Asset manager', channel: 'email', address: 'assets@fleet.example', fleetDigest: 'daily', ...body }),
    });
    return res.status;
  };
  assert.is(await put('southAdmin', 'south-fleet-mail', {}), 200, 'south\'s own recipient');
  tally.attacksTried++;
  const named = await put('northAdmin', 'north-reads-south', { OrganizationID: 'south' });
  if (named === 403) tally.attacksRefused++;
  assert.is(named, 403, 'a recipient named for another organisation');
  tally.attacksTried++;
  const taken = await put('northAdmin', 'south-fleet-mail', {});
  if (taken === 409) tally.attacksRefused++;
  assert.is(taken, 409, 'another organisation\'s recipient id');
  const { rows } = await api.db.pool.query<{ OrganizationID: string }>('select "OrganizationID" from alarm_recipients where id = \'south-fleet-mail\'');
  assert.equal(rows, [{ OrganizationID: 'south' }]);
});

test.run();
