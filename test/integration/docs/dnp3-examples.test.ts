// docs/integration.md "DNP3 points" and "DNP3 JSON topic" against the running code: docs/examples/import.json
// imported into a real database, a check-in through the real pipeline, then the point map (JSON and CSV) and
// the device profile as GET /api/dnp3/pointMap and /deviceProfile serve them must equal the files committed
// under docs/examples/, the DNP3 JSON message on the device's Kafka topic must equal the page's sample, and the
// outstation's points must carry the quality flags the page states (live, not reported, never checked in,
// deleted). UPDATE_DOC_EXAMPLES=1 rewrites the committed files from what the code serves.
import { readFileSync, writeFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMiddleware } from 'hono/factory';
import type { AuthEnv } from '../../../api/auth/caller.js';
import { ApiError } from '../../../api/errors.js';
import { DEVICE_PROFILE_PATH, POINT_MAP_PATH } from '../../../api/dnp3/endpoints.js';
import { pointMapRoutes } from '../../../api/dnp3/point-map.js';
import { Dnp3Feed } from '../../../dnp3/data/feed.js';
import { analogIndex, binaryIndex } from '../../../dnp3/data/point-map.js';
import { Flags } from '../../../dnp3/objects/table.js';
import { Outstation } from '../../../dnp3/outstation/outstation.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { Kafka, logLevel } from 'kafkajs';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import { fixtureText } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { brokers, testKafkaTransport } from '../../../support/kafka.js';
import { startTestPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { testKeyring } from '../../../support/reference-data.js';
import { randomName, waitFor } from '../../../support/wait-for.js';
import { docSample, EXAMPLES_DIR, exampleImport } from '../../helpers/integration-doc.js';

const test = suite('docs/integration.md: DNP3 samples');
const UPDATE = process.env.UPDATE_DOC_EXAMPLES === '1';
const IMEI = { breaker: '861000000000901', tap: '861000000000902', deleted: '861000000000904' };
let db: TestDatabase;
let transport: Transport;
let pipeline: TestPipeline;
// A namespace of the suite's own: fresh pipeline topics, and the device topic as `<namespace>.dnp3.north`.
const NAMESPACE = randomName('docdnp3').replace(/[^A-Za-z0-9_-]/g, '_');

const app = (org: string) => {
  const auth = createMiddleware<AuthEnv>(async (c, next) => {
    c.set('caller', { userId: 1, org, role: 'admin', timeZone: 'UTC', maskFaultDetails: false });
    await next();
  });
  const routes = pointMapRoutes({ pool: db.pool, auth });
  routes.onError((err, c) => c.json({ code: err instanceof ApiError ? err.code : 'ERROR' }, err instanceof ApiError ? err.status : 500));
  return routes;
};

/** The committed example, or (UPDATE_DOC_EXAMPLES=1) the served text written over it. */
function committed(name: string, served: string): string {
  if (UPDATE) writeFileSync(`${EXAMPLES_DIR}${name}`, served);
  return readFileSync(`${EXAMPLES_DIR}${name}`, 'utf8');
}

/** The page's check-in: the shared permanent-fault fixture, sent by the Elm St tap, without AverageCurrent1h. */
function tapCheckIn(): string {
  const m = JSON.parse(fixtureText('002-permanent-fault.json')) as { device_data: Record<string, unknown> };
  m.device_data.IMEINumber = IMEI.tap;
  delete m.device_data.AverageCurrent1h;
  return JSON.stringify(m);
}

test.before(async () => {
  db = await createTestDatabase('docdnp3');
  await importReferenceData(db.pool, exampleImport(), { keyring: testKeyring() });
  transport = await testKafkaTransport(1, NAMESPACE);
  pipeline = await startTestPipeline(transport, db.pool);
  await pipeline.feed([{ name: 'tap', body: tapCheckIn() }]);
  await pipeline.drain(60_000);
});
test.after(async () => {
  await pipeline?.stop();
  await transport?.close();
  await db?.drop();
  const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(`${NAMESPACE}.`));
  if (mine.length) await admin.deleteTopics({ topics: mine }).catch(() => {});
  await admin.disconnect();
});

test('the point map as served (JSON) is docs/examples/dnp3-point-map.json', async () => {
  const res = await app('north').request(POINT_MAP_PATH);
  assert.is(res.status, 200);
  const served = `${JSON.stringify(await res.json(), null, 2)}\n`;
  assert.fixture(served, committed('dnp3-point-map.json', served));
  const map = JSON.parse(served) as { points: { slot: number | null; imei: string | null; type: string }[]; banks: { lastSlot: number }[] };
  // Deleted devices keep their slot: a gap in the map, and the bank still reaches the highest slot given.
  assert.not.ok(map.points.some((p) => p.imei === IMEI.deleted));
  assert.equal([...new Set(map.points.map((p) => p.slot).filter((s) => s !== null))], [0, 1, 2, 4, 5]);
  assert.is(map.banks[0]!.lastSlot, 5);
});

test('the point map as served (CSV) is docs/examples/dnp3-point-map.csv', async () => {
  const res = await app('north').request(`${POINT_MAP_PATH}?format=csv`);
  const served = await res.text();
  assert.fixture(served, committed('dnp3-point-map.csv', served));
});

test('the device profile as served is docs/examples/dnp3-device-profile.xml (its generation date aside)', async () => {
  const res = await app('north').request(DEVICE_PROFILE_PATH);
  assert.is(res.status, 200);
  const today = new Date().toISOString().slice(0, 10);
  // The profile states the day it was generated; the committed one keeps the day it was made.
  const served = (await res.text()).replaceAll(today, '2026-11-20');
  assert.fixture(served, committed('dnp3-device-profile.xml', served));
});

test('analog only: the integration with analogOnly serves no binary inputs, and the analogs keep their indexes', async () => {
  await importReferenceData(db.pool, { devices: [{ IMEINumber: '861000000000990', OrganizationID: 'south', Real_Name: 'South one' }] }, { keyring: testKeyring() });
  const map = await (await app('south').request(POINT_MAP_PATH)).json() as { analogOnly: boolean; points: { type: string; index: number; slot: number | null }[] };
  assert.ok(map.analogOnly);
  assert.not.ok(map.points.some((p) => p.type === 'binary'));
  assert.equal(map.points.filter((p) => p.slot === 0).map((p) => p.index), [1, 2, 3, 4, 5, 6, 7, 8]);
});

test('the DNP3 JSON message, read raw from Kafka, is the page\'s sample: UTF-8 JSON keyed by the IMEI', async () => {
  const kafka = new Kafka({ brokers: brokers(), clientId: 'doc-dnp3-json', logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `${NAMESPACE}.doc-reader` });
  const seen: { key: string | null; value: Buffer }[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: `${NAMESPACE}.dnp3.north`, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => { seen.push({ key: message.key?.toString('utf8') ?? null, value: message.value! }); } });
    await waitFor('the DNP3 JSON message', () => seen.length >= 1, { timeoutMs: 60_000 });
  } finally {
    await consumer.disconnect();
  }
  assert.is(seen.length, 1);
  assert.is(seen[0]!.key, IMEI.tap);
  assert.is(seen[0]!.value[0], '{'.charCodeAt(0), 'plain JSON, no schema registry header');
  const value = JSON.parse(seen[0]!.value.toString('utf8')) as unknown;
  if (UPDATE) console.log(JSON.stringify(value, null, 2));
  assert.equal(value, JSON.parse(docSample('dnp3-json')));
});

test('quality flags: ONLINE when reported, none when not, RESTART before a value and for a deleted device', async () => {
  const outstation = new Outstation({ unsolicited: false });
  const feed = new Dnp3Feed({ pool: db.pool, organizationId: 'north', banks: [outstation], analogOnly: false, offlineAfterHours: 1e6, pollMs: 60_000 });
  await feed.start();
  try {
    const tap = 1; // slots follow the import order
    assert.equal(outstation.db.get('binary', binaryIndex(tap, 0)), { flags: Flags.ONLINE, value: 1, time: Date.parse('2026-11-20T14:05:00Z') });
    assert.equal(outstation.db.get('binary', binaryIndex(tap, 1))!.value, 1, 'permanent fault');
    assert.equal(outstation.db.get('analog', analogIndex(tap, 0))!.value, 4, 'the fault code');
    assert.equal(outstation.db.get('analog', analogIndex(tap, 5)), { flags: 0, value: 0, time: Date.parse('2026-11-20T14:05:00Z') }, 'AverageCurrent1h not reported');
    assert.is(outstation.db.get('binary', binaryIndex(0, 0))!.flags, Flags.RESTART, 'a device that never checked in');
    assert.is(outstation.db.get('analog', analogIndex(3, 0))!.flags, Flags.RESTART, 'the deleted device\'s slot');
    assert.is(outstation.db.get('analog', 0)!.flags, Flags.ONLINE, 'the heartbeat');
  } finally {
    await feed.stop();
  }
});

test.run();
