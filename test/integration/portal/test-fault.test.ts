// The device page's test fault in a real browser (Debian's chromium via playwright-core) against `faultline
// start` as a deployment runs it: the portal and API, the SQS bridge (ElasticMQ), the pipeline on Postgres and
// the delivery worker notifying the zeep OMS (official WSDL); no DNP3 integration, so the timeline's steps are
// queued, stored and OMS answered for the fault and for its clearing (TEST_FAULT_CLEAR_SECONDS=5). The admin
// starts it with the button and watches the timeline fill in, checked against what the API answers; a device
// that reports a fault is refused with the reason; a user who is not an admin sees no button. Before it
// starts, the portal asks, naming the integrations the fault will reach (here the OMS only).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CreateQueueCommand, DeleteQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { infraEnv } from '../../../infra/endpoints.js';
import { createSqsClient } from '../../../stages/bridge/index.js';
import type { TestFaultView } from '../../../commissioning/test-faults.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../../support/process.js';
import { importDemoData } from '../../../support/reference-data.js';
import { randomName, waitFor } from '../../../support/wait-for.js';
import { ensurePython } from '../../multispeak/python.js';
import { addIntegration } from '../multispeak/integrations.js';
import { startOms, type Oms } from '../multispeak/oms.js';
import { USERS } from '../api/seeded-api.js';
import { screenshot } from '../../../support/browser.js';
import { checkPageErrorsAfterEach, portalBrowsers, type PortalBrowsers } from '../../../support/portal-site.js';

const DEVICE = '861000000000000'; // north-east: in the group user's reach too
const FAULTED = '861000000000100'; // north-east: reports a real fault
const infra = infraEnv();
const sqs = createSqsClient({ queueUrl: infra.SQS_QUEUE_URL!, endpoint: infra.SQS_ENDPOINT! });
const dataDir = mkdtempSync(join(tmpdir(), 'portal-test-fault-'));
let db: TestDatabase;
let oms: Oms;
let proc: FaultlineProcess;
let queueUrl = '';
let base = '';
let browsers: PortalBrowsers | undefined;

const browserAs = (user: keyof typeof USERS): Promise<Page> => browsers!.browserAs(USERS[user]);

async function adminGet<T>(path: string): Promise<T> {
  const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(USERS.northAdmin) });
  const { accessToken } = (await login.json()) as { accessToken: string };
  return (await (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${accessToken}` } })).json()) as T;
}

/** A device's own check-in on the queue, as the devices send them. */
async function deviceCheckIn(imei: string, ongoingFault: number): Promise<void> {
  const body = { device_data: { IMEINumber: imei, date: new Date(Date.now() - 60_000).toISOString(), Ongoing_fault: ongoingFault, State: 0, FaultType: 0, BatteryMCU: 3.6, Temperature: 21 }, events: [], currents: null, dm1_device: false };
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
}

test.before(async () => {
  await ensurePython();
  db = await createTestDatabase('portal_testfault');
  await importDemoData(db.pool);
  oms = await startOms();
  await db.pool.query(`update integrations set enabled = false where kind in ('dnp3', 'multispeak')`);
  await addIntegration(db.pool, { id: 'portal-oms', operation: 'SCADAStatusChangedNotificationByPointID', version: '4.1', endpoint: oms.url });
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: randomName('portaltestfault') }))).QueueUrl!;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  proc = startFaultline(['start'], {
    DATABASE_URL: db.url, SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: infra.SQS_ENDPOINT!, SQS_DLQ_URL: '', SQS_WAIT_SECONDS: '1',
    KAFKA_BROKERS: '', SCHEMA_REGISTRY_URL: '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', TEST_FAULT_CLEAR_SECONDS: '5',
    FAULTLINE_SECRET_KEYS: `test:${Buffer.alloc(32, 7).toString('base64')}`, FAULTLINE_FAST_RETRY: '1', LOG_LEVEL: 'warn',
  });
  await waitFor('faultline ready', async () => (await fetch(`${base}/readyz`).catch(() => null))?.ok ?? false, { timeoutMs: 60_000, intervalMs: 200 })
    .catch((err: Error) => { throw new Error(`${err.message}\n${proc.output().slice(-4000)}`); });
  await deviceCheckIn(DEVICE, 0);
  await deviceCheckIn(FAULTED, 4);
  browsers = await portalBrowsers(base);
  await waitFor('the devices\' check-ins stored', async () => (await db.pool.query('select count(distinct "IMEINumber")::int as n from device_records')).rows[0].n === 2, { timeoutMs: 20_000, intervalMs: 200 });
});

checkPageErrorsAfterEach(test);
test.after(async () => {
  try {
    await browsers?.close();
  } finally {
    await proc?.stop('SIGTERM');
    await oms?.stop();
    if (queueUrl) await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => {});
    sqs.destroy();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/**
 * Opens the confirmation: clicks "Start test fault" until the question shows. Under load a click can land while
 * the device page still renders the panel anew, and a fresh panel has not heard it (a CI run lost one).
 */
async function openConfirm(page: Page) {
  const confirm = page.getByTestId('test-fault-confirm');
  await waitFor('the test fault confirmation', async () => {
    if (await confirm.isVisible()) return true;
    await page.getByTestId('start-test-fault').click({ timeout: 10_000 }).catch(() => {});
    return confirm.waitFor({ timeout: 5_000 }).then(() => true, () => false);
  }, { timeoutMs: 90_000, intervalMs: 200 });
  return confirm;
}

test('admin: the button starts a test fault; the timeline fills in step by step (queued, stored, OMS answered; then the clearing) as the API shows it', async () => {
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/devices/${DEVICE}`);
  const panel = page.getByTestId('test-fault');
  const button = page.getByTestId('start-test-fault');
  await button.waitFor();
  assert.ok(await button.isEnabled(), 'no test fault of this device yet');
  assert.is(await page.getByTestId('test-fault-timeline').count(), 0);
  // Nothing is sent before the admin confirms, and the question names what it will reach.
  const confirm = await openConfirm(page);
  await confirm.getByText('portal-oms').waitFor({ timeout: 60_000 });
  assert.match(await confirm.innerText(), 'OMS (MultiSpeak) portal-oms');
  assert.not.match(await confirm.innerText(), 'SCADA');
  assert.is((await db.pool.query('select count(*)::int as n from test_faults')).rows[0].n, 0, 'nothing sent before the confirmation');
  await confirm.getByRole('button', { name: 'Send the test fault' }).click({ timeout: 60_000 });

  // The fault phase: the check-in queued, then stored by the pipeline, then answered by the OMS; the button
  // stays disabled until the clearing check-in is sent.
  const row = (step: string) => panel.locator(`tr[data-step="${step}"]`);
  await row('fault:queued').waitFor();
  await row('fault:stored').waitFor();
  await row('fault:omsAnswered').waitFor();
  const caption = page.getByTestId('test-fault-timeline').locator('caption');
  const midway = await caption.innerText();
  if (await row('clear:queued').count() === 0) {
    const second = '\\d{4}-[A-Z][a-z]{2}-\\d\\d \\d\\d:\\d\\d:\\d\\d [AP]M';
    assert.match(midway, new RegExp(`^Test fault \\d+, started ${second} \\(America/Chicago, service clock\\) by admin@north\\.example: in progress, clears at ${second}$`));
    assert.ok(await button.isDisabled(), 'one test of a device at a time');
  }
  await panel.scrollIntoViewIfNeeded();
  await screenshot(page, 'portal-test-fault-running');

  // The clearing phase follows after TEST_FAULT_CLEAR_SECONDS, sent by the API process's clearer.
  await row('clear:omsAnswered').waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document
    .querySelector('[data-testid="test-fault-timeline"] caption')?.textContent?.endsWith('every step done') === true);
  assert.ok(await button.isEnabled(), 'a new test may start once the clearing check-in is sent');
  // Complete: the panel asks every 30 s instead of every 2 s while the test ran.
  const completeAt = Date.now();
  const polls: string[] = [];
  page.on('request', (r) => { if (r.url().includes('/api/test-faults')) polls.push(r.url()); });
  await panel.scrollIntoViewIfNeeded();
  await screenshot(page, 'portal-test-fault');

  // The rows say what the API says: phases and steps in order, texts, latencies and the OMS's answer.
  const { data } = await adminGet<{ data: TestFaultView[] }>(`/api/test-faults?imei=${DEVICE}`);
  const view = data[0]!;
  assert.ok(view.complete);
  assert.equal(view.expects, { dnp3: false, iec104: false, oms: true });
  assert.is(view.startedBy, USERS.northAdmin.email, 'the timeline names who started it');
  const steps = await panel.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-step')));
  assert.equal(steps, view.timeline.map((e) => `${e.phase}:${e.step}`));
  assert.equal(steps, ['fault:queued', 'fault:stored', 'fault:omsAnswered', 'clear:queued', 'clear:stored', 'clear:omsAnswered']);
  const cells = await panel.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  const ms = (v: number | null) => (v === null ? '—' : v < 1000 ? `${v} ms` : `${(v / 1000).toFixed(1)} s`);
  view.timeline.forEach((e, i) => {
    const [phase, text, , sinceQueued, sinceBefore, detail] = cells[i]!;
    assert.equal([phase, text, sinceQueued, sinceBefore], [e.phase, e.text, ms(e.sinceQueuedMs), ms(e.sinceStepBeforeMs)], `${e.phase} ${e.step}`);
    assert.ok(e.sinceQueuedMs !== null && e.sinceQueuedMs >= 0, `${e.phase} ${e.step}: ${e.sinceQueuedMs} ms since queued`);
    assert.is(detail, e.step === 'omsAnswered' ? 'HTTP 200' : '', `${e.phase} ${e.step} detail`);
  });
  assert.match(await caption.innerText(), new RegExp(`^Test fault ${view.id}, started .+ by admin@north\\.example: every step done$`));

  await page.waitForTimeout(Math.max(0, completeAt + 4500 - Date.now()));
  assert.equal(polls, [], 'no 2 s polling once complete');

  // The stored records are the test's; the OMS got both notifications marked TEST.
  const { rows } = await db.pool.query<{ TestFaultID: number | null }>('select "TestFaultID" from device_records where "IMEINumber" = $1 order by "date"', [DEVICE]);
  assert.equal(rows.map((r) => r.TestFaultID), [null, view.id, view.id]);
  assert.is((await oms.received()).filter((r) => JSON.stringify(r.body).includes(`TEST (faultline test fault ${view.id}`)).length, 2);
});

test('admin: a device that reports a fault is refused, the reason shown; nothing is queued', async () => {
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/devices/${FAULTED}`);
  // The targets are read when the question opens: Send is enabled once they are there.
  await (await openConfirm(page)).getByRole('button', { name: 'Send the test fault' }).click({ timeout: 60_000 });
  const notice = page.getByTestId('test-fault').getByRole('alert');
  await notice.waitFor();
  const said = (await notice.textContent()) ?? '';
  assert.match(said, `Not started. Device ${FAULTED} reports a fault now (ActualOngoingFault 4)`, said);
  assert.is(await page.getByTestId('test-fault-timeline').count(), 0);
  assert.is((await db.pool.query('select count(*)::int as n from test_faults where "IMEINumber" = $1', [FAULTED])).rows[0].n, 0);
});

test('a user who is not an admin sees the device page without the test fault panel (and the API refuses them)', async () => {
  const page = await browserAs('northEast');
  await page.goto(`${base}/devices/${DEVICE}`);
  await page.getByTestId('device-details').waitFor();
  await page.getByRole('heading', { name: 'Events' }).waitFor();
  assert.is(await page.getByTestId('test-fault').count(), 0);
  assert.is(await page.getByTestId('start-test-fault').count(), 0);
  assert.is(await page.getByText('Start test fault').count(), 0);
  const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(USERS.northEast) });
  const { accessToken } = (await login.json()) as { accessToken: string };
  const res = await fetch(`${base}/api/test-faults`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ imei: DEVICE }) });
  assert.is(res.status, 403);
});

test.run();
