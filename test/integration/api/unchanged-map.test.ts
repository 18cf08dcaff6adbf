// The map is kept past its one-second cache while the database does not change (api/device-records/
// unchanged-answers.ts, docs/decisions.md#a-map-rebuilt-when-something-changed): asked again with nothing written,
// it is not built again; after any write it is, and shows the write; when the clock passes the instant a device goes
// offline it is, and shows the device Offline; a clock set back builds it again; a write that commits while the map
// is being built is never missed by the next request.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import pg from 'pg';
import { createApp } from '../../../api/app.js';
import { FleetAnswer } from '../../../api/device-records/fleet-answer.js';
import { UnchangedAnswers } from '../../../api/device-records/unchanged-answers.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { recordingPool, type SentStatement } from '../../helpers/recording-pool.js';
import { throwawayPostgres } from '../../helpers/throwaway-postgres.js';
import { JWT_SECRET, login, NOW } from './seeded-api.js';

const test = suite('map kept while nothing changed');
const PREFIX = '8660000';
const DEVICE = `${PREFIX}00000001`;
const HOUR = 3_600_000;

let db: TestDatabase;
let app: Hono;
let token: string;
let clock = NOW;
const sent: SentStatement[] = [];

test.before(async () => {
  db = await createTestDatabase('unchanged_map');
  await importDemoData(db.pool);
  await registerDevices(db.pool, { prefix: PREFIX, devices: 3, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  // Checked in half an hour ago, every half hour: offline two intervals after it, half an hour from NOW.
  await db.pool.query(`update device_information set "LastCheckInTime" = $2 where "IMEINumber" = $1`, [DEVICE, new Date(NOW - HOUR / 2)]);
  await db.pool.query(`insert into checkin_clock ("IMEINumber", last_date, expected_interval_s) values ($1, $2, 1800)`, [DEVICE, new Date(NOW - HOUR / 2)]);
  app = createApp({ readiness: {}, pool: recordingPool(db.pool, (s) => sent.push(s)), jwtSecret: JWT_SECRET, now: () => clock, accountCacheMs: 0, readCacheMs: 0 });
  token = await login(app, 'northAdmin');
});
test.after(async () => { await db.drop(); });

type MapDevice = { IMEINumber: string; Real_Name: string | null; Offline: boolean };

/** The map as the admin gets it, and whether answering it sent the map's statement (built it). */
async function map(): Promise<{ devices: Map<string, MapDevice>; built: boolean; etag: string }> {
  sent.length = 0;
  const res = await app.request('/device-records/map-data', { headers: { authorization: `Bearer ${token}` } });
  assert.is(res.status, 200);
  const { data } = (await res.json()) as { data: MapDevice[] };
  return { devices: new Map(data.map((d) => [d.IMEINumber, d])), built: sent.some((s) => s.text.includes('from device_information d')), etag: res.headers.get('etag')! };
}

test('asked again with nothing written and no device due offline: kept, not built again, the same ETag', async () => {
  const first = await map();
  assert.ok(first.built, 'the first answer is built');
  assert.is(first.devices.get(DEVICE)!.Offline, false);
  clock += 10 * 60_000;
  const again = await map();
  assert.not.ok(again.built, 'ten minutes later, nothing written: kept');
  assert.is(again.etag, first.etag);
});

test('a write anywhere builds it again, and the answer shows it', async () => {
  await db.pool.query(`update device_information set "Real_Name" = 'Renamed pole' where "IMEINumber" = $1`, [DEVICE]);
  const after = await map();
  assert.ok(after.built, 'built again after the write');
  assert.is(after.devices.get(DEVICE)!.Real_Name, 'Renamed pole');
  assert.not.ok((await map()).built, 'and kept again after it');
});

test('the clock passing the instant a device goes offline builds it again, with the device Offline', async () => {
  clock = NOW + HOUR / 2 + 1;
  const later = await map();
  assert.ok(later.built, 'built again: the device went offline by the clock alone');
  assert.is(later.devices.get(DEVICE)!.Offline, true);
  assert.not.ok((await map()).built, 'nobody left to go offline: kept');
});

test('a clock set back builds it again (the answer was judged at a later instant)', async () => {
  clock = NOW;
  const back = await map();
  assert.ok(back.built);
  assert.is(back.devices.get(DEVICE)!.Offline, false);
});

test('a write that commits while the answer is built is never missed by the next request', async () => {
  const answers = new UnchangedAnswers(db.pool, () => NOW);
  const other = new pg.Client({ connectionString: db.url });
  await other.connect();
  try {
    let builds = 0;
    const build = async () => {
      builds++;
      // The write commits after the snapshot was read, before this build's statement would see it.
      if (builds === 1) await other.query(`update device_information set "Real_Name" = 'During the build' where "IMEINumber" = $1`, [DEVICE]);
      return { answer: new FleetAnswer(`{"builds":${builds}}`), validUntilMs: Infinity };
    };
    await answers.answer('k', build);
    await answers.answer('k', build);
    assert.is(builds, 2, 'the answer built before the write is not kept past it');
    await answers.answer('k', build);
    assert.is(builds, 2, 'nothing written since the second build: kept');
  } finally {
    await other.end();
  }
});

test('a server whose transaction ids went back (a restore, a standby promoted without the last write) is not taken for the one the answer was built on', async () => {
  const server = await throwawayPostgres();
  // The app's one pool, reconnecting to whichever server answers at its address.
  let current: pg.Pool | undefined;
  const connect = () => { current = new pg.Pool({ connectionString: server.url, max: 2 }); current.on('error', () => {}); };
  const pool = { query: ((...args: Parameters<pg.Pool['query']>) => current!.query(...args)) as pg.Pool['query'] };
  try {
    server.start();
    connect();
    await pool.query('create table pole (name text)');
    await current!.end();
    server.stop();
    // The backup, or the standby, as of now: it will never see the write below.
    server.copy('a', 'b');
    server.start('a');
    connect();
    await pool.query(`insert into pole values ('written before the failover')`);
    const answers = new UnchangedAnswers(pool, () => NOW);
    const build = async () => {
      const { rows } = await pool.query<{ names: string[] }>('select coalesce(array_agg(name order by name), \'{}\') as names from pole');
      return { answer: new FleetAnswer(JSON.stringify(rows[0]!.names)), validUntilMs: Infinity };
    };
    const text = (a: FleetAnswer) => Buffer.from(a.json).toString('utf8');
    assert.is(text(await answers.answer('k', build)), '["written before the failover"]');
    await current!.end();
    server.stop();
    // Failover: the copy takes over at the same address; its first write takes the transaction id of the lost one.
    server.start('b');
    connect();
    await pool.query(`insert into pole values ('written after the failover')`);
    assert.is(text(await answers.answer('k', build)), '["written after the failover"]', 'the answer of the server gone is not kept');
  } finally {
    await (current as pg.Pool | undefined)?.end().catch(() => {});
    server.remove();
  }
});

test.run();
