// Webhook and SMS targets behind a private CA (issue 42 point 5, docs/decisions.md#alarm-targets-behind-a-private-ca):
// a CA generated for this suite signs the certificate of a real HTTPS webhook receiver and a real HTTPS SMS
// gateway. `faultline start --only alarms` without ALARM_HTTP_CA_FILE cannot deliver: each failure is logged with
// a sentence saying what to change, and the messages stay owed (retried, none dead). Restarted with the CA file,
// the same messages arrive, the webhook's signature verifies, and each arrives once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { applyCheckInAlarms } from '../../../alarms/raise.js';
import { verifyWebhook } from '../../../alarms/channels/webhook.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { importAlarms, TEST_KEYS, WEBHOOK_SECRET } from '../../../support/alarm-setup.js';
import { startFaultline, type FaultlineProcess } from '../../../support/process.js';
import { waitFor } from '../../../support/wait-for.js';
import { makeCerts, type TestCerts } from '../multispeak/tls.js';
import { startHttpPeer, type HttpPeer } from './peers.js';

const IMEI = '861000000000000';
let db: TestDatabase;
let certs: TestCerts;
let hooks: HttpPeer;
let gateway: HttpPeer;
let proc: FaultlineProcess | undefined;

interface Row { channel: string; attempts: number; last_error: string | null; delivered: boolean; dead: boolean }
const outbox = async () => (await db.pool.query<Row>(
  `select r.channel, o.attempts, o.last_error, o.delivered_at is not null as delivered, o.dead_at is not null as dead
     from alarm_outbox o join alarm_recipients r on r.id = o.recipient_id order by r.channel`)).rows;
const headerMap = (h: Record<string, string | string[] | undefined>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));

function startAlarms(extra: Record<string, string>): FaultlineProcess {
  return startFaultline(['start', '--only', 'alarms'], {
    DATABASE_URL: db.url, KAFKA_BROKERS: '', SCHEMA_REGISTRY_URL: '', SQS_QUEUE_URL: '', PORT: '0', FAULTLINE_SECRET_KEYS: TEST_KEYS,
    ALARM_WEBHOOK_ALLOW: 'loopback', ALARM_SMS_URL: `${gateway.url}/sms`, ALARM_SMS_TOKEN: 'sms-Token-5678', FAULTLINE_FAST_RETRY: '1', ...extra,
  });
}

async function running(p: FaultlineProcess): Promise<void> {
  await waitFor('faultline to start', () => p.output().includes('faultline is running') || p.child.exitCode !== null, { timeoutMs: 60_000 });
  assert.ok(p.child.exitCode === null, p.output());
}

test.before(async () => {
  db = await createTestDatabase('alarmprivateca');
  await importDemoData(db.pool);
  certs = makeCerts();
  hooks = await startHttpPeer(certs);
  gateway = await startHttpPeer(certs);
  await importAlarms(db.pool, {
    recipients: [
      { id: 'ca-hook', OrganizationID: 'north', name: 'Private receiver', channel: 'webhook', address: `${hooks.url}/hook`, secret: WEBHOOK_SECRET },
      { id: 'ca-sms', OrganizationID: 'north', name: 'On call', channel: 'sms', address: '+15550142' },
    ],
    rules: [{ id: 'ca-all', OrganizationID: 'north', class: 'operations', what: ['permanent'], who: ['ca-hook', 'ca-sms'] }],
  });
});
test.after(async () => {
  await proc?.stop();
  await Promise.all([hooks?.stop(), gateway?.stop()]);
  await db?.drop();
  if (certs) rmSync(certs.dir, { recursive: true, force: true });
});

test('without ALARM_HTTP_CA_FILE: refused by TLS, logged with what to change, retried, nothing dead', async () => {
  proc = startAlarms({});
  await running(proc);
  const now = Date.now();
  await applyCheckInAlarms(db.pool, [{
    IMEINumber: IMEI, OrganizationID: 'north', PowerLineID: 'north-F12', deviceName: null, date: new Date(now).toISOString(), code: 4,
    transition: { raise: 'permanent', end: ['temporary'] }, modelChange: null,
  }], now);
  await waitFor('both messages tried and failed more than once', async () => {
    const rows = await outbox();
    return rows.length === 2 && rows.every((r) => r.attempts >= 2);
  }, { timeoutMs: 60_000, intervalMs: 200 });
  for (const r of await outbox()) {
    assert.match(r.last_error ?? '', /TLS_FAILED/, `${r.channel}: ${r.last_error}`);
    assert.ok(!r.delivered && !r.dead, `${r.channel} still owed`);
  }
  assert.match(proc.output(), /alarm delivery failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE[^\n]*a private CA goes in ALARM_HTTP_CA_FILE/);
  assert.is(hooks.requests.length + gateway.requests.length, 0, 'no request got past the handshake');
  await proc.stop();
  proc = undefined;
});

test('with ALARM_HTTP_CA_FILE: the owed messages arrive, the webhook signed, each once', async () => {
  proc = startAlarms({ ALARM_HTTP_CA_FILE: certs.ca });
  await running(proc);
  await waitFor('both messages delivered', async () => (await outbox()).every((r) => r.delivered), { timeoutMs: 60_000, intervalMs: 200 });
  assert.is(hooks.requests.length, 1);
  assert.is(gateway.requests.length, 1);
  const hook = hooks.requests[0]!;
  assert.ok(verifyWebhook(WEBHOOK_SECRET, headerMap(hook.headers), hook.body), 'valid HMAC-SHA256 signature');
  assert.is((JSON.parse(hook.body) as { IMEINumber: string; type: string }).IMEINumber, IMEI);
  assert.is(new URLSearchParams(gateway.requests[0]!.body).get('to'), '+15550142');
  assert.is(gateway.requests[0]!.headers.authorization, 'Bearer sms-Token-5678');
  assert.ok((await outbox()).every((r) => !r.dead));
});

test('an unreadable or empty ALARM_HTTP_CA_FILE stops the start with a sentence naming it', async () => {
  for (const [file, why] of [['/nonexistent/ca.pem', /ALARM_HTTP_CA_FILE \/nonexistent\/ca\.pem cannot be read/], [certs.key, /holds no PEM certificate/]] as const) {
    const p = startAlarms({ ALARM_HTTP_CA_FILE: file });
    try {
      await waitFor('the start to end or run', () => p.child.exitCode !== null || p.output().includes('faultline is running'), { timeoutMs: 60_000 });
      assert.is(p.child.exitCode, 1, p.output());
      assert.match(p.output(), why);
    } finally {
      await p.stop();
    }
  }
});

test.run();
