// The fleet digest (issue 44 point 6; docs/decisions.md#fleet-digest) through the real alarm worker to a real
// SMTP server (STARTTLS) and a signed webhook: its counts are GET /api/fleet/summary's for the organisation's
// admin, over a database filled through the real stages; one message per recipient and period, whatever the
// number of rounds, restarts or processes; a daily digest every day from FLEET_DIGEST_HOUR in the organisation's
// zone (north: America/Chicago), a weekly one on Mondays.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyWebhook } from '../../../alarms/channels/webhook.js';
import { startAlarmWorker, type AlarmWorker } from '../../../alarms/start.js';
import { organisationFleetSummary } from '../../../api/fleet/summary.js';
import { loadAlarmSettings } from '../../../config/settings.js';
import { importAlarms, WEBHOOK_SECRET } from '../../../support/alarm-setup.js';
import { testKeyring } from '../../../support/reference-data.js';
import { seededApi, type SeededApi } from '../api/seeded-api.js';
import { startHttpPeer, startSmtp, type HttpPeer, type SmtpPeer } from './peers.js';

const test = suite('fleet digest');
let api: SeededApi;
let smtp: SmtpPeer;
let hooks: HttpPeer;
const workers: AlarmWorker[] = [];
let settings: ReturnType<typeof loadAlarmSettings>;

// 2026-11-21 is a Saturday; 13:30 UTC is 07:30 in Chicago, past the send hour.
const SATURDAY = Date.parse('2026-11-21T13:30:00Z');
const HOUR = 3_600_000;

const readable = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=').replace(/\r\n/g, '\n');

function worker(nowMs: number): AlarmWorker {
  const w = startAlarmWorker({ pool: api.db.pool, settings, offlineAfterHours: 26, keyring: testKeyring(), now: () => nowMs, fleetSummary: organisationFleetSummary }, { loop: false });
  workers.push(w);
  return w;
}

/** One router round and the outbox drained, as `faultline start` does on a tick. */
async function round(nowMs: number): Promise<void> {
  const w = worker(nowMs);
  await w.tick();
  while ((await w.sendOnce()) > 0) { /* until nothing is owed */ }
}

const digests = async () => (await api.db.pool.query<{ recipient_id: string; dedup_key: string; delivered: boolean }>(
  `select recipient_id, dedup_key, delivered_at is not null as delivered from alarm_outbox where kind = 'fleet-digest' order by recipient_id, dedup_key`)).rows;

test.before(async () => {
  api = await seededApi();
  [smtp, hooks] = await Promise.all([startSmtp(), startHttpPeer()]);
  await importAlarms(api.db.pool, {
    recipients: [
      { id: 'north-fleet-mail', OrganizationID: 'north', name: 'Asset manager', channel: 'email', address: 'assets@north.example', fleetDigest: 'daily' },
      { id: 'north-fleet-hook', OrganizationID: 'north', name: 'Data platform', channel: 'webhook', address: `${hooks.url}/fleet`, secret: WEBHOOK_SECRET, fleetDigest: 'weekly' },
      { id: 'north-desk', OrganizationID: 'north', name: 'Ops desk', channel: 'email', address: 'ops@north.example' },
    ],
  });
  settings = loadAlarmSettings({
    ALARM_WEBHOOK_ALLOW: 'loopback', ALARM_SMTP_URL: `smtp://alarms:smtp-Pass-1234@127.0.0.1:${smtp.port}`, ALARM_SMTP_CA_FILE: smtp.certs.ca,
    ALARM_SMTP_FROM: 'faultline <alarms@faultline.test>', PORTAL_URL: 'https://portal.north.example/',
  });
});
test.after(async () => {
  try { await Promise.all(workers.map((w) => w.stop())); await smtp?.stop(); await hooks?.stop(); } finally { await api?.close(); }
});

test('each recipient that asks gets the API\'s counts for its organisation: the day before by e-mail, the week before by webhook', async () => {
  await round(SATURDAY);
  assert.equal((await digests()).map((d) => [d.recipient_id, d.dedup_key, d.delivered]), [
    ['north-fleet-hook', 'fleet-digest:weekly:2026-11-09', true],
    ['north-fleet-mail', 'fleet-digest:daily:2026-11-20', true],
  ]);
  const summary = await (await api.get('/api/fleet/summary', 'northAdmin')).json() as Record<string, unknown>;
  assert.ok((summary.devices as number) > 0 && (summary.assessed as number) > 0, 'the organisation has assessed devices');

  assert.is(hooks.requests.length, 1);
  const req = hooks.requests[0]!;
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  assert.ok(verifyWebhook(WEBHOOK_SECRET, headers, req.body, SATURDAY), 'signed');
  const body = JSON.parse(req.body) as Record<string, unknown>;
  assert.equal([body.type, body.every, body.from, body.to, body.OrganizationID, body.link], ['fleet-digest', 'weekly', '2026-11-09', '2026-11-15', 'north', 'https://portal.north.example/fleet']);
  assert.equal(body.fleet, summary, 'the webhook carries GET /api/fleet/summary as the admin reads it');

  const mails = smtp.mails.filter((m) => m.to.includes('assets@north.example'));
  assert.is(mails.length, 1);
  assert.is(smtp.mails.length, 1, 'the recipient without fleetDigest gets nothing');
  assert.ok(mails[0]!.secure, 'over STARTTLS');
  const text = readable(mails[0]!.raw);
  assert.match(text, 'Subject: Fleet health daily digest for north: 2026-11-20');
  const online = summary.online7d as Record<string, number>;
  const silent = summary.silentByLabel as Record<string, number>;
  for (const line of [`devices: ${String(summary.devices)}`, `online7d / received: ${online.received}`, `online7d / expected: ${online.expected}`,
    `silentByLabel / never_commissioned: ${silent.never_commissioned}`, `drifting: ${String(summary.drifting)}`]) {
    assert.ok(text.includes(line), `the e-mail says "${line}"`);
  }
});

test('once per period: more rounds, a restart and a second process send nothing more', async () => {
  await round(SATURDAY + 60_000);
  await round(SATURDAY + 2 * HOUR);
  await Promise.all([round(SATURDAY + 3 * HOUR), round(SATURDAY + 3 * HOUR)]);
  assert.is((await digests()).length, 2);
  assert.is(hooks.requests.length, 1);
  assert.is(smtp.mails.length, 1);
});

test('the next day from the send hour in the organisation\'s zone; the next week on Monday', async () => {
  // Sunday 06:59 in Chicago: still Friday's digest, already sent.
  await round(Date.parse('2026-11-22T12:59:00Z'));
  assert.is((await digests()).length, 2);
  // Sunday 07:00 in Chicago: Saturday's.
  await round(Date.parse('2026-11-22T13:00:00Z'));
  // Monday 07:00 in Chicago: Sunday's, and the week 16 to 22 November.
  await round(Date.parse('2026-11-23T13:00:00Z'));
  assert.equal((await digests()).map((d) => d.dedup_key), [
    'fleet-digest:weekly:2026-11-09', 'fleet-digest:weekly:2026-11-16', 'fleet-digest:daily:2026-11-20', 'fleet-digest:daily:2026-11-21', 'fleet-digest:daily:2026-11-22',
  ]);
  assert.ok((await digests()).every((d) => d.delivered));
  assert.is(hooks.requests.length, 2);
  assert.equal((JSON.parse(hooks.requests[1]!.body) as Record<string, unknown>).from, '2026-11-16');
  assert.is(smtp.mails.length, 3);
});

test('a digest the service was down for goes out when it comes back, once', async () => {
  // Down from Monday 07:00 to Wednesday 06:00 in Chicago: the digest due on Tuesday (Monday's) is the latest due.
  await round(Date.parse('2026-11-25T12:00:00Z'));
  await round(Date.parse('2026-11-25T12:30:00Z'));
  const keys = (await digests()).map((d) => d.dedup_key);
  assert.is(keys.length, 6);
  assert.ok(keys.includes('fleet-digest:daily:2026-11-23'));
  assert.is(smtp.mails.length, 4);
});

test.run();
