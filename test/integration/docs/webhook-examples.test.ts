// docs/integration.md "Alarm webhooks" against the product's sender: alarms of every kind are raised through
// the product's entry points (the notify stage's applyCheckInAlarms, the communication-lost clock, the incident
// worker's raiseEventAlarm), routed and sent by the alarm worker to a local HTTP receiver. Each body the page
// shows must have the fields, value types and fixed values of the body faultline sent for that kind and message
// type; the verification snippets (Node and Python, as printed on the page) must accept a real signed request
// and refuse it tampered, stale or under another secret; 2xx, 5xx and 4xx answers do what the page says.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyCheckInAlarms, raiseEventAlarm } from '../../../alarms/raise.js';
import { startAlarmWorker, type AlarmWorker } from '../../../alarms/start.js';
import { organisationFleetSummary } from '../../../api/fleet/summary.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../../alarms/channels/webhook.js';
import { loadAlarmSettings } from '../../../config/settings.js';
import { ALARM_KINDS, DEENERGISED_SECTION, FAULT_CODE_KINDS, INCIDENT_LOCATED, INCIDENT_OPENED, INCIDENT_RESTORED, kindOfCode, RECURRING_SECTION } from '../../../domain/alarm-kinds.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { testKeyring } from '../../../support/reference-data.js';
import { docSample, docSamples, exampleImport } from '../../helpers/integration-doc.js';
import { startHttpPeer, type HttpPeer, type HttpRequestSeen } from '../alarms/peers.js';

const test = suite('docs/integration.md: webhook samples');
const SECRET = 'whsec-doc-test-0123456789';
const ORG = 'north';
const DEVICES = { breaker: '861000000000901', tap: '861000000000902', oak: '861000000000903', yard: '861000000000905' };
const MASKED_DEVICE = '861000000000990';
const LINE: Record<string, string | null> = { [DEVICES.breaker]: 'north-F9', [DEVICES.tap]: 'north-F9', [DEVICES.oak]: 'north-F9', [DEVICES.yard]: null };
let db: TestDatabase;
let hooks: HttpPeer;
let clock = Date.parse('2026-11-20T14:05:00.000Z');
let worker: AlarmWorker;

const settings = (over: Partial<ReturnType<typeof loadAlarmSettings>> = {}) => ({
  ...loadAlarmSettings({ PORTAL_URL: 'https://portal.north.example', ALARM_WEBHOOK_ALLOW: 'loopback' }), stormThreshold: 1000, ...over,
});
/** `fleet`: a worker that sends fleet digests too (alarms/fleet-digest.ts). */
const newWorker = (over: Partial<ReturnType<typeof loadAlarmSettings>> = {}, fleet = false) =>
  startAlarmWorker({ pool: db.pool, settings: settings(over), offlineAfterHours: 1, keyring: testKeyring(), now: () => clock, backoff: { initialMs: 1, maxMs: 1 }, fleetSummary: fleet ? organisationFleetSummary : undefined }, { loop: false });

/** Routes what is due and sends every message that can go now. */
async function round(w = worker): Promise<void> {
  await w.tick();
  while (await w.sendOnce() > 0) { /* until the outbox has nothing due */ }
}

const checkIn = (imei: string, code: number, over: Partial<CheckInAlarms> = {}): CheckInAlarms => ({
  IMEINumber: imei, OrganizationID: ORG, PowerLineID: LINE[imei] ?? null, deviceName: null, date: new Date(clock).toISOString(), code,
  transition: { raise: kindOfCode(code), end: FAULT_CODE_KINDS.filter((k) => k !== kindOfCode(code)) }, modelChange: null, ...over,
});

async function incident(kind: string, episode: string, imei = DEVICES.breaker): Promise<void> {
  const client = await db.pool.connect();
  try {
    await raiseEventAlarm(client, { OrganizationID: ORG, IMEINumber: imei, PowerLineID: LINE[imei] ?? null, kind, episode, detail: { incidentId: 1 } }, clock);
  } finally {
    client.release();
  }
}

const bodies = () => hooks.requests.map((r) => JSON.parse(r.body) as Record<string, unknown>);
const jsonType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** The page's body against the one sent: the same fields, the same value types (null aside), the same fixed values. */
function sameAsSent(name: string, sent: Record<string, unknown> | undefined): void {
  assert.ok(sent, `faultline sent a body like ${name}`);
  const shown = JSON.parse(docSample(name)) as Record<string, unknown>;
  assert.equal(Object.keys(shown).sort(), Object.keys(sent!).sort(), `${name}: fields`);
  for (const [k, v] of Object.entries(shown)) {
    if (v !== null && sent![k] !== null) assert.is(jsonType(v), jsonType(sent![k]), `${name}.${k}: type`);
  }
  for (const k of ['type', 'kind', 'label', 'class', 'OrganizationID']) assert.equal(shown[k], sent![k], `${name}.${k}`);
  const key = new RegExp(`^faultline-alarm-(\\d+|digest)-${String(sent!.type)}-\\d+$`);
  assert.match(String(sent!.idempotencyKey), key, `${name}: the idempotency key's form`);
  assert.match(String(shown.idempotencyKey), key, `${name}: the page's idempotency key has the same form`);
}

test.before(async () => {
  db = await createTestDatabase('docwebhook');
  hooks = await startHttpPeer();
  const file = exampleImport();
  const recipients = [
    { id: 'north-hook', OrganizationID: ORG, name: 'Data platform', channel: 'webhook', address: `${hooks.url}/faultline`, secret: SECRET, fleetDigest: 'weekly' },
    { id: 'south-hook', OrganizationID: 'south', channel: 'webhook', address: `${hooks.url}/south`, secret: SECRET },
  ];
  const upkeep = ['low-battery', 'communication-lost', 'model-change', RECURRING_SECTION];
  const operations = ALARM_KINDS.filter((k) => !upkeep.includes(k.id)).map((k) => k.id);
  const rules = [
    { id: 'ops', OrganizationID: ORG, class: 'operations', what: operations, who: ['north-hook'], escalation: { afterMinutes: 30, roster: ['north-hook'] } },
    { id: 'upkeep', OrganizationID: ORG, class: 'maintenance', what: upkeep, who: ['north-hook'] },
    // South masks fault details (docs/examples/import.json): its rules name `fault`.
    { id: 'south-faults', OrganizationID: 'south', class: 'operations', what: ['fault'], who: ['south-hook'] },
  ];
  const southDevice = { IMEINumber: MASKED_DEVICE, OrganizationID: 'south', Real_Name: 'South one' };
  await importReferenceData(db.pool, { ...file, devices: [...file.devices!, southDevice], alarmRecipients: recipients, alarmRules: rules }, { keyring: testKeyring(), webhookAllow: ['loopback'] });
  worker = newWorker();
});
test.after(async () => {
  await worker?.stop();
  await hooks?.stop();
  await db?.drop();
});

test('faultline sends a raised body of every kind, a cleared and an escalated one, and digests in a storm', async () => {
  // Fault-code kinds: four devices, then two of them move to other codes (which clears what they had).
  await applyCheckInAlarms(db.pool, [checkIn(DEVICES.breaker, 4), checkIn(DEVICES.tap, 2), checkIn(DEVICES.oak, 6), checkIn(DEVICES.yard, 10),
    checkIn(MASKED_DEVICE, 4, { OrganizationID: 'south' })], clock);
  await round();
  clock += 60_000;
  await applyCheckInAlarms(db.pool, [checkIn(DEVICES.breaker, 21), checkIn(DEVICES.tap, 402), checkIn(DEVICES.yard, 10, { transition: null, modelChange: { oldModel: 'FCI-2000', newModel: 'FCI-3000' } })], clock);
  await round();
  for (const kind of [INCIDENT_OPENED, INCIDENT_LOCATED, INCIDENT_RESTORED]) await incident(kind, 'incident:1');
  await incident(RECURRING_SECTION, 'recurring-section:1');
  await incident(DEENERGISED_SECTION, 'deenergised:1');
  await round();
  // An hour and a half of silence: communication lost (the clock's ceiling is an hour), escalations due.
  clock += 90 * 60_000;
  await round();
  // A storm: past the threshold within the window, one digest; a calm window later, the closing one.
  const stormy = newWorker({ stormThreshold: 2, stormWindowMinutes: 10 });
  try {
    for (const [i, imei] of Object.values(DEVICES).entries()) await incident(INCIDENT_OPENED, `incident:storm-${i}`, imei);
    await round(stormy);
    clock += 11 * 60_000;
    await round(stormy);
  } finally {
    await stormy.stop();
  }
  // The weekly fleet digest, from a worker given the fleet summary.
  const digesting = newWorker({}, true);
  try {
    await round(digesting);
  } finally {
    await digesting.stop();
  }
  const sent = bodies();
  for (const k of ALARM_KINDS) sameAsSent(`webhook-raised-${k.id}`, sent.find((b) => b.type === 'raised' && b.kind === k.id && b.OrganizationID === ORG));
  sameAsSent('webhook-raised-masked', sent.find((b) => b.OrganizationID === 'south' && b.type === 'raised'));
  sameAsSent('webhook-cleared', sent.find((b) => b.type === 'cleared' && b.kind === 'permanent'));
  sameAsSent('webhook-escalated', sent.find((b) => b.type === 'escalated' && b.kind === 'over-current'));
  sameAsSent('webhook-digest', sent.find((b) => b.type === 'digest'));
  sameAsSent('webhook-digest-end', sent.find((b) => b.type === 'digest-end'));
  const fleet = sent.find((b) => b.type === 'fleet-digest');
  sameAsSent('webhook-fleet-digest', fleet);
  assert.equal(Object.keys(JSON.parse(docSample('webhook-fleet-digest')).fleet as object).sort(), Object.keys(fleet!.fleet as object).sort(), 'the fleet summary\'s fields');
  // Every body the page shows was compared above.
  assert.is([...docSamples().keys()].filter((n) => n.startsWith('webhook-')).length, ALARM_KINDS.length + 6);
});

test('every request carries the headers the page lists, the key in the body too', () => {
  for (const r of hooks.requests) {
    assert.is(r.headers['content-type'], 'application/json');
    assert.is(r.headers['user-agent'], 'faultline-alarms');
    assert.match(String(r.headers[TIMESTAMP_HEADER]), /^\d{10}$/);
    assert.match(String(r.headers[SIGNATURE_HEADER]), /^sha256=[0-9a-f]{64}$/);
    assert.is(r.headers[IDEMPOTENCY_HEADER], (JSON.parse(r.body) as { idempotencyKey: string }).idempotencyKey);
  }
});

/** Runs the page's snippet in `lang` on a request; true when it says the request is genuine. */
function snippetSays(lang: 'node' | 'python', secret: string, r: HttpRequestSeen, nowSeconds: number, body = r.body): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-doc-'));
  try {
    const input = JSON.stringify({ secret, ts: r.headers[TIMESTAMP_HEADER], sig: r.headers[SIGNATURE_HEADER], body, now: nowSeconds });
    if (lang === 'node') {
      writeFileSync(join(dir, 'verify.mjs'), docSample('verify-node'));
      writeFileSync(join(dir, 'run.mjs'), `import { readFileSync } from 'node:fs';\nimport { verifyFaultlineWebhook } from './verify.mjs';\n`
        + `const i = JSON.parse(readFileSync(0, 'utf8'));\nconsole.log(verifyFaultlineWebhook(i.secret, i.ts, i.sig, Buffer.from(i.body, 'utf8'), i.now) ? 'valid' : 'invalid');\n`);
      return execFileSync(process.execPath, [join(dir, 'run.mjs')], { input, encoding: 'utf8' }).trim() === 'valid';
    }
    writeFileSync(join(dir, 'verify.py'), docSample('verify-python'));
    writeFileSync(join(dir, 'run.py'), 'import json, sys\nfrom verify import verify_faultline_webhook\ni = json.load(sys.stdin)\n'
      + "print('valid' if verify_faultline_webhook(i['secret'], i['ts'], i['sig'], i['body'].encode('utf-8'), i['now']) else 'invalid')\n");
    return execFileSync('python3', [join(dir, 'run.py')], { input, encoding: 'utf8', cwd: dir, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } }).trim() === 'valid';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const lang of ['node', 'python'] as const) {
  test(`the ${lang} snippet accepts a real signed request and refuses it tampered, stale or under another secret`, () => {
    const r = hooks.requests[0]!;
    const signedAt = Number(r.headers[TIMESTAMP_HEADER]);
    assert.ok(snippetSays(lang, SECRET, r, signedAt + 5), 'genuine');
    assert.not.ok(snippetSays(lang, SECRET, r, signedAt + 5, r.body.replace('"raised"', '"cleared"')), 'body changed');
    assert.not.ok(snippetSays(lang, 'whsec-another-secret-000', r, signedAt + 5), 'another secret');
    assert.not.ok(snippetSays(lang, SECRET, r, signedAt + 301), 'older than 300 s');
    assert.not.ok(snippetSays(lang, SECRET, r, signedAt - 301), 'from the future');
  });
}

test('answers: 2xx delivered, 5xx retried, other 4xx dead at once', async () => {
  // The message at the head of a device's lane (the check-in's end of communication lost comes first).
  const outcome = async (status: number, imei: string) => {
    hooks.status = status;
    clock += 60_000;
    await applyCheckInAlarms(db.pool, [checkIn(imei, 0, { transition: null })], clock);
    await worker.tick();
    await worker.sendOnce();
    const { rows: [row] } = await db.pool.query<{ attempts: number; delivered: boolean; dead: boolean }>(
      `select attempts, delivered_at is not null as delivered, dead_at is not null as dead from alarm_outbox
        where recipient_id = 'north-hook' and lane = $1 and attempts > 0 order by id desc limit 1`, [imei]);
    return row!;
  };
  assert.equal(await outcome(503, DEVICES.oak), { attempts: 1, delivered: false, dead: false }, 'a 503 is tried again');
  assert.equal(await outcome(404, DEVICES.tap), { attempts: 1, delivered: false, dead: true }, 'a 404 is dead at once');
  assert.equal(await outcome(204, DEVICES.breaker), { attempts: 1, delivered: true, dead: false }, 'a 204 is delivered');
});

test.run();
