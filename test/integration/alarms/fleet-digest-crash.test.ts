// The fleet digest (alarms/fleet-digest.ts) as a crash and as concurrency (docs/decisions.md#review-of-fleet-health-as-a-crash):
// a real router process killed after queueing the digests and before its commit (seam alarms.fleet-digest-queued),
// a second router while one holds the round, rounds every few minutes across both DST changes of the recipient's
// zone, and a recipient or organisation changed mid-period (cadence, zone). Each recipient gets one digest per
// send time: never none, never two the same morning.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { routeAlarms } from '../../../alarms/router.js';
import { loadAlarmSettings } from '../../../config/settings.js';
import { importAlarms } from '../../../support/alarm-setup.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { emptyTally, reportTally, type Tally } from '../../helpers/tally.js';
import { digestSummary } from './fleet-digest-settings.js';

const test = suite('fleet digest as a crash');
const SEAM = 'alarms.fleet-digest-queued';
const CHILD = fileURLToPath(new URL('./fleet-digest-round.ts', import.meta.url));
const MIN = 60_000;
const HOUR = 60 * MIN;
const tally: Tally = emptyTally();
let db: TestDatabase;

const settingsAt = (sendHour: number) => loadAlarmSettings({ FLEET_DIGEST_HOUR: String(sendHour) });
/** One round in this process, once a killed process's transaction (and its lock) is gone. */
const round = (nowMs: number, sendHour = 7) => waitFor('a router round that is not skipped', async () => {
  const r = await routeAlarms(db.pool, settingsAt(sendHour), nowMs, digestSummary);
  return r.skipped ? null : r;
});
const childEnv = (nowMs: number, failpoint: string) => ({ ...process.env, DATABASE_URL: db.url, NOW_MS: String(nowMs), FAULTLINE_FAILPOINTS: failpoint });
const digests = async () => (await db.pool.query<{ key: string; at: Date }>(
  `select dedup_key as key, created_at as at from alarm_outbox where kind = 'fleet-digest' order by created_at, id`)).rows;
const keys = async () => (await digests()).map((d) => d.key);
const recipient = async (fleetDigest: 'daily' | 'weekly') => {
  await db.pool.query('delete from alarm_recipients');
  await importAlarms(db.pool, { recipients: [{ id: 'north-assets', OrganizationID: 'north', channel: 'email', address: 'assets@north.example', fleetDigest }] });
};
const zone = (tz: string) => db.pool.query(`update organizations set timezone = $1 where "OrganizationID" = 'north'`, [tz]);

test.before(async () => {
  db = await createTestDatabase('fleet_digest_crash');
  await importDemoData(db.pool);
});
test.before.each(async () => {
  await db.pool.query('delete from alarm_outbox');
  await zone('America/Chicago');
});
test.after(async () => {
  reportTally('fleet digest as a crash', tally);
  await db?.drop();
});

// 2026-11-23 is a Monday; 13:30 UTC is 07:30 in Chicago (UTC-6), past the send hour.
const MONDAY = Date.parse('2026-11-23T13:30:00Z');

test('killed after queueing the digest, before the commit: nothing stays; the restarted router queues it once', async () => {
  await recipient('daily');
  const child = spawnSync(process.execPath, ['--import', 'tsx', CHILD], { env: childEnv(MONDAY, `${SEAM}=exit`), encoding: 'utf8', timeout: 120_000 });
  assert.is(child.signal, 'SIGKILL', `the router died by SIGKILL\n${child.stdout}\n${child.stderr}`);
  assert.match(child.stderr, `failpoint ${SEAM}: exit`, 'at the seam');
  tally.faultsInjected++;
  assert.equal(await keys(), [], 'the killed round queued nothing');
  for (const later of [MONDAY + MIN, MONDAY + 2 * MIN, MONDAY + 3 * HOUR]) await round(later);
  tally.messagesSent++;
  const got = await keys();
  assert.equal(got, ['fleet-digest:daily:2026-11-22'], 'one digest: not lost, not twice');
  tally.messagesStored += got.length;
});

test('two routers at once: the second skips while the first holds the round; the first killed, the second queues once', async () => {
  await recipient('daily');
  const holder = spawn(process.execPath, ['--import', 'tsx', CHILD], { env: childEnv(MONDAY, `${SEAM}=hold`), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  holder.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  try {
    await waitFor('the first router to hold its round at the seam', () => stderr.includes(`failpoint ${SEAM}: hold`));
    const second = await routeAlarms(db.pool, settingsAt(7), MONDAY + MIN, digestSummary);
    assert.is(second.skipped, true, 'one router at a time');
    assert.equal(await keys(), [], 'the holder\'s rows are not committed');
  } finally {
    holder.kill('SIGKILL');
  }
  tally.faultsInjected++;
  await round(MONDAY + 2 * MIN);
  await round(MONDAY + 3 * MIN);
  tally.messagesSent++;
  const got = await keys();
  assert.equal(got, ['fleet-digest:daily:2026-11-22']);
  tally.messagesStored += got.length;
});

/** Rounds every 20 minutes from `fromIso` for `days` days; the digests' period keys in order. */
async function everyTwentyMinutes(fromIso: string, days: number, sendHour: number): Promise<string[]> {
  const from = Date.parse(fromIso);
  for (let t = from; t < from + days * 24 * HOUR; t += 20 * MIN) await round(t, sendHour);
  return keys();
}

test('DST in the recipient\'s zone: one daily digest a day, on the day the clocks spring forward over the send hour and the day they fall back through it', async () => {
  await recipient('daily');
  // Chicago springs forward on 2026-03-08 (02:00 CST is 03:00 CDT: the send hour 2 never happens that day).
  const spring = await everyTwentyMinutes('2026-03-07T00:00:00Z', 3, 2);
  assert.equal(spring, ['fleet-digest:daily:2026-03-05', 'fleet-digest:daily:2026-03-06', 'fleet-digest:daily:2026-03-07', 'fleet-digest:daily:2026-03-08']);
  await db.pool.query('delete from alarm_outbox');
  // Chicago falls back on 2026-11-01 (01:00-02:00 happens twice: the send hour 1 twice that day).
  const fall = await everyTwentyMinutes('2026-10-31T00:00:00Z', 3, 1);
  assert.equal(fall, ['fleet-digest:daily:2026-10-29', 'fleet-digest:daily:2026-10-30', 'fleet-digest:daily:2026-10-31', 'fleet-digest:daily:2026-11-01']);
  tally.messagesSent += 8;
  tally.messagesStored += spring.length + fall.length;
});

test('a restart across the send hour: the digest the service was down for goes out when it comes back, once', async () => {
  await recipient('daily');
  await round(MONDAY - 3 * HOUR); // 04:30 in Chicago: Saturday's digest is the latest due
  await round(MONDAY + 5 * HOUR); // down from 04:30 to 12:30: Sunday's goes out now
  await round(MONDAY + 5 * HOUR + MIN);
  tally.messagesSent += 2;
  const got = await keys();
  assert.equal(got, ['fleet-digest:daily:2026-11-21', 'fleet-digest:daily:2026-11-22']);
  tally.messagesStored += got.length;
});

/** Digests queued within one morning (the same local day) for the recipient: the count a person sees. */
const sameMorning = async (fromMs: number, toMs: number) => (await digests()).filter((d) => d.at.getTime() >= fromMs && d.at.getTime() <= toMs).map((d) => d.key);

test('switched from weekly to daily on the Monday after the weekly went out: no second digest that morning; the daily one from the next day', async () => {
  await recipient('weekly');
  await round(MONDAY); // 07:30: last week's weekly
  await db.pool.query(`update alarm_recipients set fleet_digest = 'daily'`);
  await round(MONDAY + 30 * MIN);
  await round(MONDAY + 2 * HOUR);
  assert.equal(await sameMorning(MONDAY, MONDAY + 2 * HOUR), ['fleet-digest:weekly:2026-11-16'], 'one digest that morning, not a daily one for Sunday too');
  await round(MONDAY + 24 * HOUR);
  tally.messagesSent += 2;
  const got = await keys();
  assert.equal(got, ['fleet-digest:weekly:2026-11-16', 'fleet-digest:daily:2026-11-23'], 'Monday\'s daily on Tuesday');
  tally.messagesStored += got.length;
});

test('switched from daily to weekly the morning the daily went out: no weekly for last week on top; the next weekly the Monday after', async () => {
  await recipient('daily');
  await round(MONDAY);
  await db.pool.query(`update alarm_recipients set fleet_digest = 'weekly'`);
  await round(MONDAY + 30 * MIN);
  assert.equal(await sameMorning(MONDAY, MONDAY + HOUR), ['fleet-digest:daily:2026-11-22'], 'one digest that morning');
  for (let day = 1; day <= 7; day++) await round(MONDAY + day * 24 * HOUR);
  tally.messagesSent += 2;
  const got = await keys();
  assert.equal(got, ['fleet-digest:daily:2026-11-22', 'fleet-digest:weekly:2026-11-23']);
  tally.messagesStored += got.length;
});

test('the organisation\'s zone moved west after the digest went out: the earlier day\'s digest is not sent on top', async () => {
  await recipient('daily');
  await zone('Pacific/Auckland');
  // 18:30 UTC on Monday is 07:30 on Tuesday in Auckland: Monday's digest.
  const auckland = MONDAY + 5 * HOUR;
  await round(auckland);
  await zone('America/Chicago'); // 12:30 on Monday in Chicago: Sunday's was due at 07:00, before Auckland's went out
  await round(auckland + 30 * MIN);
  tally.messagesSent += 1;
  const got = await keys();
  assert.equal(got, ['fleet-digest:daily:2026-11-23'], 'one digest that day');
  tally.messagesStored += got.length;
});

test.run();
