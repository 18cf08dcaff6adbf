// Alarm messages to people of a masked organisation name no class (docs/decisions.md#masking): a check-in
// alarm goes through the real router and outbox worker to a real SMTP server (STARTTLS), the SMS gateway peer
// and a signed webhook. The north organisation masks; its stored rule names `permanent` and is read as
// `fault`, so a temporary fault reaches its recipients too, as "Fault". The south organisation, unmasked,
// with the same rule, hears only of the permanent fault, by its class.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyWebhook } from '../../../alarms/channels/webhook.js';
import { applyCheckInAlarms } from '../../../alarms/raise.js';
import { startAlarmWorker, type AlarmWorker } from '../../../alarms/start.js';
import { loadAlarmSettings } from '../../../config/settings.js';
import { FAULT_CODE_KINDS, kindOfCode } from '../../../domain/alarm-kinds.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData, testKeyring } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { startHttpPeer, startSmtp, type HttpPeer, type SmtpPeer } from '../alarms/peers.js';
import { importAlarms, WEBHOOK_SECRET } from '../../../support/alarm-setup.js';

let db: TestDatabase;
let smtp: SmtpPeer;
let gateway: HttpPeer;
let hooks: HttpPeer;
let worker: AlarmWorker;
const NORTH = '861000000000100';
const SOUTH = '861100000000100';
const CLASS_WORDS = /permanent|temporary|pfault|tfault/i;

const readable = (raw: string) => raw.replace(/\r?\n(?=[ \t])/g, '').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
const headerMap = (h: Record<string, string | string[] | undefined>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));

function recipients(org: string) {
  return [
    { id: `${org}-mail`, OrganizationID: org, name: 'Ops desk', channel: 'email', address: `ops@${org}.example` },
    { id: `${org}-sms`, OrganizationID: org, name: 'On call', channel: 'sms', address: org === 'north' ? '+15550100' : '+15550200' },
    { id: `${org}-hook`, OrganizationID: org, name: 'Data platform', channel: 'webhook', address: `${hooks.url}/${org}`, secret: WEBHOOK_SECRET },
  ];
}

const checkIn = (imei: string, org: string, atMs: number, code: number, previous: number) => ({
  IMEINumber: imei, OrganizationID: org, PowerLineID: null, deviceName: `Pole of ${org}`, date: new Date(atMs).toISOString(), code,
  transition: kindOfCode(code) !== kindOfCode(previous) ? { raise: kindOfCode(code), end: FAULT_CODE_KINDS.filter((k) => k !== kindOfCode(code)) } : null,
  modelChange: null,
});

test.before(async () => {
  db = await createTestDatabase('mask_messages');
  await importDemoData(db.pool);
  await db.pool.query(`update organizations set "MaskFaultDetails" = ("OrganizationID" = 'north')`);
  [smtp, gateway, hooks] = await Promise.all([startSmtp(), startHttpPeer(), startHttpPeer()]);
  await importAlarms(db.pool, {
    recipients: [...recipients('north'), ...recipients('south')],
    rules: ['north', 'south'].map((org) => ({ id: `${org}-permanent`, OrganizationID: org, class: 'operations', what: ['permanent'], who: [`${org}-mail`, `${org}-sms`, `${org}-hook`] })),
  });
  const settings = loadAlarmSettings({
    ALARM_WEBHOOK_ALLOW: 'loopback', ALARM_SMTP_URL: `smtp://alarms:smtp-Pass-1234@127.0.0.1:${smtp.port}`, ALARM_SMTP_CA_FILE: smtp.certs.ca,
    ALARM_SMTP_FROM: 'faultline <alarms@faultline.test>', ALARM_SMS_URL: `${gateway.url}/sms`, ALARM_SMS_TOKEN: 'sms-Token-5678',
  });
  worker = startAlarmWorker({ pool: db.pool, settings, offlineAfterHours: 26, keyring: testKeyring() }, { loop: false });
});
test.after(async () => {
  await worker?.stop();
  await Promise.all([smtp?.stop(), gateway?.stop(), hooks?.stop()]);
  await db?.drop();
});

async function deliverAll(expected: number): Promise<void> {
  await worker.tick();
  await waitFor(`${expected} messages per channel`, async () => {
    await worker.sendOnce();
    return smtp.mails.length >= expected && gateway.requests.length >= expected && hooks.requests.length >= expected;
  }, { timeoutMs: 30_000, intervalMs: 200 });
}

test('a masked organisation\'s e-mail, SMS and webhook say Fault; its rule naming permanent covers a temporary fault', async () => {
  const t = Date.now() - 60_000;
  // north: a temporary fault (the rule names permanent: read as fault, it matches); south: the same, unmatched.
  await applyCheckInAlarms(db.pool, [checkIn(NORTH, 'north', t, 2, 0), checkIn(SOUTH, 'south', t, 2, 0)], t);
  await deliverAll(1);
  // south: a permanent fault, told by its class.
  await applyCheckInAlarms(db.pool, [checkIn(SOUTH, 'south', t + 1000, 4, 2)], t + 1000);
  await deliverAll(2);

  const to = (org: string) => ({
    mail: smtp.mails.filter((m) => m.to.includes(`ops@${org}.example`)).map((m) => readable(m.raw)),
    sms: gateway.requests.filter((r) => new URLSearchParams(r.body).get('to') === (org === 'north' ? '+15550100' : '+15550200')).map((r) => new URLSearchParams(r.body).get('text') ?? ''),
    hooks: hooks.requests.filter((r) => r.path === `/${org}`),
  });
  const north = to('north');
  assert.is(north.mail.length, 1);
  assert.match(north.mail[0]!, /Subject: ALARM Fault: Pole of north \(861000000000100\)/);
  assert.match(north.mail[0]!, /Kind: Fault/);
  assert.match(north.sms[0]!, /^ALARM Fault: Pole of north/);
  const hook = north.hooks[0]!;
  assert.ok(verifyWebhook(WEBHOOK_SECRET, headerMap(hook.headers), hook.body), 'signed as ever');
  const body = JSON.parse(hook.body) as Record<string, unknown>;
  assert.equal([body.kind, body.label], ['fault', 'Fault']);
  for (const text of [...north.mail, ...north.sms, hook.body]) assert.not.match(text, CLASS_WORDS);

  const south = to('south');
  assert.is(south.mail.length, 1, 'south hears only of the permanent fault');
  assert.match(south.mail[0]!, /Subject: ALARM Permanent fault: Pole of south/);
  assert.is((JSON.parse(south.hooks[0]!.body) as { kind: string }).kind, 'permanent');
});

test.run();
