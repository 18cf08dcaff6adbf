// Issue 20, "Done when", per channel: a fault check-in put into the queue (ElasticMQ) goes through the real
// bridge and pipeline (`faultline start --only bridge,pipeline,alarms`, a child process) and becomes an
// e-mail received over STARTTLS by a real SMTP server, a request at the SMS gateway peer and a webhook with
// a valid signature; the check-in that ends the fault brings the clear on all three.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CreateQueueCommand, DeleteQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { infraEnv } from '../../../infra/endpoints.js';
import { createSqsClient } from '../../../stages/bridge/sqs-client.js';
import { verifyWebhook, IDEMPOTENCY_HEADER } from '../../../alarms/channels/webhook.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { fixtureText } from '../../../support/checkins.js';
import { startFaultline, type FaultlineProcess } from '../../../support/process.js';
import { randomName, waitFor } from '../../../support/wait-for.js';
import { startHttpPeer, startSmtp, type HttpPeer, type SmtpPeer } from './peers.js';
import { everyChannel, importAlarms, TEST_KEYS, WEBHOOK_SECRET } from '../../../support/alarm-setup.js';

const test = suite('alarms end to end');
const endpoint = process.env.SQS_ENDPOINT ?? infraEnv().SQS_ENDPOINT!;
const sqs = createSqsClient({ queueUrl: `${endpoint}/000000000000/admin`, endpoint });
const IMEI = '861000000000100';
let db: TestDatabase;
let smtp: SmtpPeer;
let gateway: HttpPeer;
let hooks: HttpPeer;
let queueUrl: string;
let proc: FaultlineProcess;

/** A check-in of the fixture device at `date` (recent: an old one would also be silent for the clock) with fault code `code` (4 Permanent with a PFault event; 0 none). */
function checkIn(date: string, code: number): string {
  const m = JSON.parse(fixtureText('002-permanent-fault.json')) as { device_data: Record<string, unknown>; events: Record<string, unknown>[] };
  m.device_data.date = date;
  m.device_data.Ongoing_fault = code;
  m.events = code ? [{ ...m.events[0], EventID: 500 + Math.floor(Date.parse(date) / 1000) % 100_000, EventTimestamp: new Date(Date.parse(date) - 30_000).toISOString() }] : [];
  return JSON.stringify(m);
}

/** Headers unfolded and quoted-printable soft breaks removed, so a test reads the message as sent. */
const readable = (raw: string) => raw.replace(/\r?\n(?=[ \t])/g, '').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
const secondsAgo = (s: number) => new Date(Math.floor(Date.now() / 1000 - s) * 1000).toISOString().replace('.000Z', 'Z');
const headerMap = (h: Record<string, string | string[] | undefined>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));

test.before(async () => {
  db = await createTestDatabase('alarme2e');
  await importDemoData(db.pool);
  smtp = await startSmtp();
  gateway = await startHttpPeer();
  hooks = await startHttpPeer();
  await importAlarms(db.pool, everyChannel(hooks.url));
  const q = await sqs.send(new CreateQueueCommand({ QueueName: randomName('alarms') }));
  queueUrl = q.QueueUrl!;
  proc = startFaultline(['start', '--only', 'bridge,pipeline,alarms'], {
    DATABASE_URL: db.url, SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: endpoint, KAFKA_BROKERS: '', SCHEMA_REGISTRY_URL: '', PORT: '0',
    FAULTLINE_SECRET_KEYS: TEST_KEYS, ALARM_WEBHOOK_ALLOW: 'loopback',
    ALARM_SMTP_URL: `smtp://alarms:smtp-Pass-1234@127.0.0.1:${smtp.port}`, ALARM_SMTP_CA_FILE: smtp.certs.ca, ALARM_SMTP_FROM: 'faultline <alarms@faultline.test>',
    ALARM_SMS_URL: `${gateway.url}/sms`, ALARM_SMS_TOKEN: 'sms-Token-5678', PORTAL_URL: 'https://portal.north.example',
  });
  await waitFor('faultline to start', () => proc.output().includes('faultline is running') || proc.child.exitCode !== null, { timeoutMs: 60_000 });
  assert.ok(proc.child.exitCode === null, proc.output());
});
test.after(async () => {
  await proc?.stop();
  await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => {});
  await Promise.all([smtp?.stop(), gateway?.stop(), hooks?.stop()]);
  await db?.drop();
  sqs.destroy();
});

test('a permanent fault from the queue: e-mail over STARTTLS, SMS at the gateway, signed webhook', async () => {
  // Raised 11 minutes before its clear (device time): longer than the chatter window, so the clear is not held
  // (docs/decisions.md#hot-spots-and-chattering-alarms).
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: checkIn(secondsAgo(11 * 60), 4) }));
  await waitFor('three raised messages', () => smtp.mails.length >= 1 && gateway.requests.length >= 1 && hooks.requests.length >= 1, { timeoutMs: 30_000, intervalMs: 100 });

  const mail = smtp.mails[0]!;
  assert.ok(mail.secure, 'the SMTP session was upgraded with STARTTLS before the message');
  assert.is(mail.user, 'alarms');
  assert.equal(mail.to, ['ops@north.example']);
  assert.match(readable(mail.raw), /Subject: ALARM Permanent fault: North F7 Pole 41 Phase B \(861000000000100\) on north-F7/);
  assert.match(readable(mail.raw), /https:\/\/portal\.north\.example\/alarms\?alarm=\d+/);

  const sms = gateway.requests[0]!;
  assert.is(sms.path, '/sms');
  assert.is(sms.headers['content-type'], 'application/x-www-form-urlencoded');
  assert.is(sms.headers.authorization, 'Bearer sms-Token-5678');
  const form = new URLSearchParams(sms.body);
  assert.is(form.get('to'), '+15550100');
  assert.match(form.get('text') ?? '', /^ALARM Permanent fault/);

  const hook = hooks.requests[0]!;
  assert.is(hook.path, '/hook');
  assert.ok(verifyWebhook(WEBHOOK_SECRET, headerMap(hook.headers), hook.body), 'valid HMAC-SHA256 signature over timestamp and body');
  assert.not.ok(verifyWebhook('another-secret-0000', headerMap(hook.headers), hook.body), 'a wrong secret does not verify');
  const body = JSON.parse(hook.body) as Record<string, unknown>;
  assert.is(body.type, 'raised');
  assert.is(body.kind, 'permanent');
  assert.is(body.IMEINumber, IMEI);
  assert.is(hook.headers[IDEMPOTENCY_HEADER], body.idempotencyKey);
});

test('the check-in that ends the fault clears on every channel; nothing is sent twice', async () => {
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: checkIn(secondsAgo(1), 0) }));
  await waitFor('three cleared messages', () => smtp.mails.length >= 2 && gateway.requests.length >= 2 && hooks.requests.length >= 2, { timeoutMs: 30_000, intervalMs: 100 });
  assert.match(readable(smtp.mails[1]!.raw), /Subject: CLEARED Permanent fault/);
  assert.match(new URLSearchParams(gateway.requests[1]!.body).get('text') ?? '', /^CLEARED Permanent fault/);
  const hook = hooks.requests[1]!;
  assert.ok(verifyWebhook(WEBHOOK_SECRET, headerMap(hook.headers), hook.body));
  assert.is((JSON.parse(hook.body) as { type: string }).type, 'cleared');
  await new Promise((r) => setTimeout(r, 1500));
  assert.is(smtp.mails.length, 2);
  assert.is(gateway.requests.length, 2);
  assert.is(hooks.requests.length, 2);
  const { rows } = await db.pool.query<{ kind: string; cleared: boolean }>('select kind, cleared_at is not null as cleared from alarms');
  assert.equal(rows, [{ kind: 'permanent', cleared: true }]);
  // The secrets never reach the process's log.
  for (const s of [WEBHOOK_SECRET, 'smtp-Pass-1234', 'sms-Token-5678']) assert.not.ok(proc.output().includes(s), `${s} logged`);
});

test.run();
