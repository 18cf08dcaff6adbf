// A test fault end to end (issue 21 point 3) through the real pieces: `faultline start` on Kafka, the registry,
// an SQS queue and Postgres; POST /api/test-faults sends the synthetic check-in to the SQS queue, the pipeline
// stores it marked as a test, the outstation reports it to the opendnp3 master (yadnp3) over mutual TLS, the
// delivery worker notifies the zeep OMS (official WSDL); after clearAfterSeconds the clearing check-in follows
// the same way. The timeline (queued, stored, DNP3 sent, confirmed by the master, OMS answered) is asserted
// for both phases, and the latency histograms of point 4 count the traffic.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { infraEnv } from '../../infra/endpoints.js';
import { createSqsClient } from '../../stages/bridge/index.js';
import { binaryIndex, analogIndex } from '../../dnp3/data/point-map.js';
import type { TestFaultView } from '../../commissioning/test-faults.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { importDemoData } from '../../support/reference-data.js';
import { randomName, waitFor } from '../../support/wait-for.js';
import { ensurePython } from '../multispeak/python.js';
import { addIntegration } from '../integration/multispeak/integrations.js';
import { startOms, type Oms } from '../integration/multispeak/oms.js';
import { Yadnp3Master, type Item } from '../../support/dnp3-master.js';
import { devCerts, type DevCerts } from '../helpers/dev-certs.js';

const env = { ...infraEnv(), ...process.env } as Record<string, string>;
const sqs = createSqsClient({ queueUrl: env.SQS_QUEUE_URL!, endpoint: env.SQS_ENDPOINT! });
let certs: DevCerts;
const dataDir = mkdtempSync(join(tmpdir(), 'test-fault-data-'));

let db: TestDatabase;
let oms: Oms;
let proc: FaultlineProcess;
let master: Yadnp3Master;
let queueUrl = '';
let base = '';
let token = '';
let imei = '';
let slot = 0;
const seen: Item[] = [];

test.before(async () => {
  certs = devCerts('test-fault-certs-');
  await ensurePython();
  db = await createTestDatabase('testfault');
  await importDemoData(db.pool);
  oms = await startOms();
  // Only the zeep OMS: the demo integrations point at a demo OMS nobody runs here.
  await db.pool.query(`update integrations set enabled = false where kind = 'multispeak'`);
  await addIntegration(db.pool, { id: 'tf-oms', operation: 'SCADAStatusChangedNotificationByPointID', version: '4.1', endpoint: oms.url });
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: randomName('testfault') }))).QueueUrl!;
  const [port, dnp3Port] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${port}`;
  proc = startFaultline(['start'], {
    KAFKA_BROKERS: env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL!, KAFKA_NAMESPACE: randomName('testfault'), KAFKA_PARTITIONS: '2',
    DATABASE_URL: db.url, SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: env.SQS_ENDPOINT!, DATA_DIR: dataDir,
    PORT: String(port), HOST: '127.0.0.1', DNP3_PORT: String(dnp3Port),
    DNP3_TLS_KEY: certs.outstation.key, DNP3_TLS_CERT: certs.outstation.cert, DNP3_TLS_CA: certs.outstation.ca,
    FAULTLINE_SECRET_KEYS: `test:${Buffer.alloc(32, 7).toString('base64')}`, FAULTLINE_FAST_RETRY: '1', LOG_LEVEL: 'warn',
  });
  await waitFor('faultline ready', async () => (await fetch(`${base}/readyz`).catch(() => null))?.ok ?? false, { timeoutMs: 120_000, intervalMs: 250 })
    .catch((err: Error) => { throw new Error(`${err.message}\n${proc.output().slice(-4000)}`); });
  const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@north.example', password: 'north-Admin-Pass-1' }) });
  token = ((await login.json()) as { accessToken: string }).accessToken;
  // A north device and its DNP3 slot, as the point map gives them to the SCADA engineer.
  const map = (await (await fetch(`${base}/api/dnp3/pointMap`, { headers: { authorization: `Bearer ${token}` } })).json()) as { points: { imei: string; slot: number }[] };
  ({ imei, slot } = map.points.find((p) => p.imei)!);
  master = new Yadnp3Master(dnp3Port, certs.master('north'), { indexes: [binaryIndex(slot, 0), analogIndex(slot, 0)] });
  await master.startup();
});

test.after(async () => {
  await master?.stop();
  await proc?.stop('SIGTERM');
  await oms?.stop();
  if (queueUrl) await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => {});
  sqs.destroy();
  await db?.drop();
  certs?.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

const api = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });

test('a test fault: queued in SQS, stored as a test, an event confirmed by the opendnp3 master, answered by the OMS, cleared; the timeline has every step with its latency', async () => {
  const started = await api('/api/test-faults', { method: 'POST', body: JSON.stringify({ imei, clearAfterSeconds: 5 }) });
  assert.is(started.status, 202, await started.clone().text());
  const first = (await started.json()) as TestFaultView;
  assert.equal(first.expects, { dnp3: true, iec104: false, oms: true });
  assert.ok(first.timeline.some((e) => e.phase === 'fault' && e.step === 'queued'), 'queued when the answer comes');
  assert.match(first.timeline[0]!.detail.queue as string, /^SQS /);
  assert.is((await api('/api/test-faults', { method: 'POST', body: JSON.stringify({ imei }) })).status, 409, 'one at a time per device');

  // The master polls events as a SCADA master does (unsolicited is off in its start-up sequence).
  let view = first;
  await waitFor('the timeline of both phases complete', async () => {
    const a = await master.command('events');
    seen.push(...a.items.filter((i) => i.event));
    view = (await (await api(`/api/test-faults/${first.id}`)).json()) as TestFaultView;
    return view.complete;
  }, { timeoutMs: 90_000, intervalMs: 500 }).catch((err: Error) => { throw new Error(`${err.message}: ${JSON.stringify(view, null, 1)}\n${proc.output().slice(-3000)}`); });

  const steps = (phase: string) => view.timeline.filter((e) => e.phase === phase).map((e) => e.step).filter((s) => s !== 'omsFailed');
  for (const phase of ['fault', 'clear']) {
    assert.equal(steps(phase), ['queued', 'stored', 'dnp3Sent', 'dnp3Confirmed', 'omsAnswered'], phase);
    for (const e of view.timeline.filter((x) => x.phase === phase && x.step !== 'queued')) {
      assert.ok(e.sinceQueuedMs !== null && e.sinceQueuedMs >= 0 && e.sinceQueuedMs < 60_000, `${phase} ${e.step}: ${e.sinceQueuedMs} ms`);
      assert.ok(e.sinceStepBeforeMs !== null && e.sinceStepBeforeMs >= 0, `${phase} ${e.step} after its predecessor: ${e.sinceStepBeforeMs} ms`);
    }
    const oms = view.timeline.find((e) => e.phase === phase && e.step === 'omsAnswered')!;
    assert.equal([oms.detail.status, oms.detail.integration], [200, 'tf-oms']);
  }
  assert.ok(Date.parse(view.timeline.find((e) => e.phase === 'clear' && e.step === 'queued')!.at) >= Date.parse(view.clearDueAt), 'cleared when due');

  // The stored records are marked as a test (and State 3, "Test").
  const { rows } = await db.pool.query<{ TestFaultID: number; ActualOngoingFault: number; State: number }>(
    'select "TestFaultID", "ActualOngoingFault", "State" from device_records where "IMEINumber" = $1 order by "date"', [imei]);
  assert.equal(rows.map((r) => [r.TestFaultID, r.ActualOngoingFault > 0, r.State]), [[first.id, true, 3], [first.id, false, 0]]);

  // The master saw the fault-active point go on and off as events, stamped with the check-ins' device times. The
  // timeline completes when the master confirms; the answer that carried the clearing may reach this test a poll
  // later on a loaded machine, so poll until both are here (or a minute has passed).
  const faultActive = () => seen.filter((i) => i.kind === 'binary' && i.index === binaryIndex(slot, 0)).map((i) => i.value);
  await waitFor('the fault-active point on and off at the master', async () => {
    if (faultActive().length < 2) seen.push(...(await master.command('events')).items.filter((i) => i.event));
    return faultActive().length >= 2;
  }, { timeoutMs: 60_000, intervalMs: 500 }).catch(() => {});
  assert.equal(faultActive(), [true, false], JSON.stringify(seen));

  // The OMS got both notifications, each saying it is a test.
  const received = (await oms.received()).filter((r) => r.operation === 'SCADAStatusChangedNotificationByPointID');
  assert.is(received.length, 2);
  for (const r of received) {
    assert.equal(r.schemaErrors, []);
    const status = (Array.isArray(r.body.scadaStatus) ? r.body.scadaStatus[0] : r.body.scadaStatus) as Record<string, unknown>;
    assert.match(String(status.comments), new RegExp(`^TEST \\(faultline test fault ${first.id}`));
  }
});

test('the latency histograms of real traffic count the organisation\'s check-ins', async () => {
  const metrics = await (await fetch(`${base}/metrics`)).text();
  for (const name of ['faultline_checkin_stored_seconds', 'faultline_dnp3_confirmed_seconds', 'faultline_oms_acknowledged_seconds']) {
    const count = new RegExp(`^${name}_count\\{organization="north"\\} (\\d+)`, 'm').exec(metrics);
    assert.ok(count && Number(count[1]) >= 2, `${name}: ${count?.[0] ?? 'absent'}`);
  }
});

test('bad requests name the problem', async () => {
  const cases: [RequestInit, number, RegExp][] = [
    [{ method: 'POST', body: JSON.stringify({ imei: 'x' }) }, 400, /imei/],
    [{ method: 'POST', body: JSON.stringify({ imei, clearAfterSeconds: 1 }) }, 400, /clearAfterSeconds/],
    [{ method: 'POST', body: JSON.stringify({ imei: '861999999999999' }) }, 404, /not found/],
    [{ method: 'POST', body: '{' }, 400, /not valid JSON/],
  ];
  for (const [init, status, message] of cases) {
    const res = await api('/api/test-faults', init);
    assert.is(res.status, status, JSON.stringify(init));
    assert.match(((await res.json()) as { error: { message: string } }).error.message, message);
  }
  assert.is((await api('/api/test-faults/abc')).status, 400);
  assert.is((await api('/api/test-faults/999999')).status, 404);
});

test.run();
