// One communication-lost rule (issue 20 point 2; domain/checkin-clock.ts): the DNP3 communication-lost point,
// device-summary's offline count, all-devices' Connectivity filter and map-data's Offline (the portal's
// "Communication lost") all judge a device by its learned check-in interval, OFFLINE_AFTER_HOURS the ceiling.
// Check-ins go through the real stages, which keep the learned clock; then the DNP3 feed and the API read it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../../api/app.js';
import { Dnp3Feed } from '../../../dnp3/data/feed.js';
import { binaryIndex, localSlot } from '../../../dnp3/data/point-map.js';
import { slotDevices } from '../../../points/store.js';
import { Outstation } from '../../../dnp3/outstation/outstation.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { fixtureText } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { importDemoData } from '../../../support/reference-data.js';
import { JWT_SECRET, login } from '../api/seeded-api.js';

const test = suite('one communication-lost rule');
const MIN = 60_000;
const QUICK = '861000000000000'; // checks in every 15 minutes
const SLOW = '861000000000100'; // every 6 hours
const FEW = '861000000000200'; // two check-ins: too little history, the ceiling alone
const COMM_LOST_POINT = 6;
const LAST = Date.now() - 31 * MIN; // every device's last check-in
const LIMITS = { offlineAfterHours: 26, checkinFloorS: 300 };
let db: TestDatabase;
let seq = 0;

function message(imei: string, atMs: number): { name: string; body: string } {
  const m = JSON.parse(fixtureText('002-permanent-fault.json')) as { device_data: Record<string, unknown>; events: unknown[] };
  m.device_data.IMEINumber = imei;
  m.device_data.date = new Date(atMs).toISOString();
  m.device_data.Ongoing_fault = 0;
  m.events = [];
  return { name: `offline-rule-${seq++}.json`, body: JSON.stringify(m) };
}

test.before(async () => {
  db = await createTestDatabase('offline_rule');
  await importDemoData(db.pool);
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, db.pool);
  try {
    for (let k = 9; k >= 0; k--) await pipe.feed([message(QUICK, LAST - k * 15 * MIN)]);
    for (let k = 4; k >= 0; k--) await pipe.feed([message(SLOW, LAST - k * 360 * MIN)]);
    for (let k = 1; k >= 0; k--) await pipe.feed([message(FEW, LAST - k * 60 * MIN)]);
    await pipe.drain();
  } finally {
    await pipe.stop();
    await transport.close();
  }
});
test.after(async () => { await db?.drop(); });

test('the stages learned each device\'s interval', async () => {
  const { rows } = await db.pool.query<{ IMEINumber: string; expected_interval_s: number | null }>(
    'select "IMEINumber", expected_interval_s from checkin_clock where "IMEINumber" = any($1) order by 1', [[QUICK, SLOW, FEW]]);
  assert.equal(rows.map((r) => [r.IMEINumber, r.expected_interval_s]), [[QUICK, 900], [SLOW, 21_600], [FEW, null]]);
});

/** The DNP3 communication-lost point of each device, as an outstation fed at `nowMs` holds it. */
async function dnp3Lost(nowMs: number): Promise<Record<string, number>> {
  const outstation = new Outstation({ unsolicited: false });
  const feed = new Dnp3Feed({ pool: db.pool, organizationId: 'north', banks: [outstation], analogOnly: false, ...LIMITS, clock: () => nowMs, pollMs: 60_000 });
  await feed.start();
  try {
    const slots = new Map((await slotDevices(db.pool, 'north')).map((d) => [d.imei, d.slot]));
    return Object.fromEntries([QUICK, SLOW, FEW].map((imei) => [imei, outstation.db.get('binary', binaryIndex(localSlot(slots.get(imei)!), COMM_LOST_POINT))!.value as number]));
  } finally {
    await feed.stop();
  }
}

/** What the API says of each device at `nowMs`: map-data's Offline, the Connectivity filter, the summary's count. */
async function apiSays(nowMs: number): Promise<{ offline: Record<string, boolean>; filtered: string[]; online: number }> {
  const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: null, now: () => nowMs, ...LIMITS });
  const token = await login(app, 'northAdmin');
  const get = async (path: string) => (await app.request(path, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<Record<string, unknown>>;
  const map = (await get('/device-records/map-data')).data as { IMEINumber: string; Offline: boolean }[];
  const offline = Object.fromEntries(map.filter((d) => [QUICK, SLOW, FEW].includes(d.IMEINumber)).map((d) => [d.IMEINumber, d.Offline]));
  const page = (await get('/device-records/all-devices?filterBy[Connectivity]=offline&limit=100')).data as { IMEINumber: string }[];
  const filtered = page.map((d) => d.IMEINumber).filter((i) => [QUICK, SLOW, FEW].includes(i));
  return { offline, filtered, online: (await get('/device-records/device-summary')).online as number };
}

test('15-minute device: online after one missed interval, offline after two, in DNP3 and the API; the 6-hour one and the one with little history stay online', async () => {
  // 29 minutes after the last check-in: under two 15-minute intervals.
  assert.equal(await dnp3Lost(LAST + 29 * MIN), { [QUICK]: 0, [SLOW]: 0, [FEW]: 0 });
  assert.equal(await apiSays(LAST + 29 * MIN), { offline: { [QUICK]: false, [SLOW]: false, [FEW]: false }, filtered: [], online: 3 });
  // 31 minutes: two intervals missed.
  assert.equal(await dnp3Lost(LAST + 31 * MIN), { [QUICK]: 1, [SLOW]: 0, [FEW]: 0 });
  assert.equal(await apiSays(LAST + 31 * MIN), { offline: { [QUICK]: true, [SLOW]: false, [FEW]: false }, filtered: [QUICK], online: 2 });
  // 12 h 1 min: the 6-hour device has missed two too; the one with little history waits for the ceiling (26 h).
  const late = LAST + 721 * MIN;
  assert.equal(await dnp3Lost(late), { [QUICK]: 1, [SLOW]: 1, [FEW]: 0 });
  assert.equal(await apiSays(late), { offline: { [QUICK]: true, [SLOW]: true, [FEW]: false }, filtered: [QUICK, SLOW], online: 1 });
  const ceiling = LAST + 26 * 60 * MIN + MIN;
  assert.equal(await dnp3Lost(ceiling), { [QUICK]: 1, [SLOW]: 1, [FEW]: 1 });
  assert.equal(await apiSays(ceiling), { offline: { [QUICK]: true, [SLOW]: true, [FEW]: true }, filtered: [QUICK, SLOW, FEW], online: 0 });
});

test.run();
