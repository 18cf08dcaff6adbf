// IEC 104 in `faultline start` (#33): the station component fed from Postgres like the DNP3 outstation
// (points/feed.ts), on Kafka, the registry, an SQS queue and Postgres. A test fault (POST /api/test-faults) goes
// through the real queue and pipeline, and the c104 controlling station (PyPI, run as a test peer only) gets the
// fault and its clearing as spontaneous M_SP_TB_1 with the check-ins' device timestamps, and the test fault's
// timeline records the station's send and the master's acknowledgement (iec104Sent, iec104Confirmed). A fault stored while no
// master is connected, and faultline restarted before any connects, still reaches the next master, once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { infraEnv } from '../../../infra/endpoints.js';
import { createSqsClient } from '../../../stages/bridge/index.js';
import { singleIoa } from '../../../iec104/data/point-map.js';
import { bankOf, localSlot } from '../../../points/banks.js';
import type { TestFaultView } from '../../../commissioning/test-faults.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../../support/process.js';
import { importDemoData } from '../../../support/reference-data.js';
import { randomName, waitFor } from '../../../support/wait-for.js';
import { devCerts, type DevCerts } from '../../helpers/dev-certs.js';
import { C104Master } from './c104-master.js';

const env = { ...infraEnv(), ...process.env } as Record<string, string>;
const sqs = createSqsClient({ queueUrl: env.SQS_QUEUE_URL!, endpoint: env.SQS_ENDPOINT! });
const dataDir = mkdtempSync(join(tmpdir(), 'iec104-start-data-'));
let certs: DevCerts;
let db: TestDatabase;
let proc: FaultlineProcess;
let master: C104Master | undefined;
let queueUrl = '';
let base = '';
let token = '';
let iec104Port = 0;
let faultlineEnv: Record<string, string> = {};

/** A failed wait, with what faultline said last (CI shows only the suite's output). */
const withOutput = (err: Error): never => { throw new Error(`${err.message}\n${proc.output().slice(-4000)}`); };

/** Starts faultline and waits until the station is listed among its components. */
async function startIt(): Promise<void> {
  proc = startFaultline(['start'], faultlineEnv);
  await waitFor('faultline ready', async () => (await fetch(`${base}/readyz`).catch(() => null))?.ok ?? false, { timeoutMs: 120_000, intervalMs: 250 })
    .catch(withOutput);
  // The API answers before the later components have started: wait for start's list.
  await waitFor('the IEC 104 station listed', () => /IEC 104 station on TCP 127\.0\.0\.1:\d+.*\(mutual TLS/.test(proc.output()), { timeoutMs: 60_000, intervalMs: 250 })
    .catch(withOutput);
}

// uvu does not print an error thrown by a before hook: print it here.
test.before(async () => { await setup().catch((e: unknown) => { console.error('before:', e); throw e; }); });
async function setup(): Promise<void> {
  certs = devCerts('iec104-start-certs-');
  db = await createTestDatabase('iec104start');
  await importDemoData(db.pool);
  await db.pool.query(`update integrations set enabled = false where kind = 'multispeak'`);
  await db.pool.query(`insert into integrations (id, "OrganizationID", kind, channel, settings) values ('north-104', 'north', 'iec104', 'A', $1)`,
    [JSON.stringify({ masterIdentity: 'scada.north.example', commonAddress: 1 })]);
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: randomName('iec104start') }))).QueueUrl!;
  const [port, dnp3Port] = [await freePort(), await freePort()];
  iec104Port = await freePort();
  base = `http://127.0.0.1:${port}`;
  faultlineEnv = {
    KAFKA_BROKERS: env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL!, KAFKA_NAMESPACE: randomName('iec104start'), KAFKA_PARTITIONS: '2',
    DATABASE_URL: db.url, SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: env.SQS_ENDPOINT!, DATA_DIR: dataDir,
    PORT: String(port), HOST: '127.0.0.1', DNP3_PORT: String(dnp3Port), IEC104_PORT: String(iec104Port),
    DNP3_TLS_KEY: certs.outstation.key, DNP3_TLS_CERT: certs.outstation.cert, DNP3_TLS_CA: certs.outstation.ca,
    FAULTLINE_SECRET_KEYS: `test:${Buffer.alloc(32, 7).toString('base64')}`, FAULTLINE_FAST_RETRY: '1', LOG_LEVEL: 'warn',
  };
  await startIt();
  const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@north.example', password: 'north-Admin-Pass-1' }) });
  token = ((await login.json()) as { accessToken: string }).accessToken;
}

test.after(async () => {
  await master?.stop();
  await proc?.stop('SIGTERM');
  if (queueUrl) await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => {});
  sqs.destroy();
  await db?.drop();
  certs?.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

const api = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });

test('a test fault reaches the c104 master as spontaneous events with the check-ins\' device timestamps, fault and clearing', async () => {
  const map = (await (await api('/api/dnp3/pointMap')).json()) as { points: { imei: string | null; slot: number }[] };
  const { imei, slot } = map.points.find((p) => p.imei) as { imei: string; slot: number };
  const ca = 1 + bankOf(slot);
  master = new C104Master(iec104Port, certs.master('north'), 60, String(ca));
  await master.until((l) => l.some((x) => x.ev === 'connected'), 'connection').catch(withOutput);
  assert.ok(master.lines.find((x) => x.ev === 'connected')!.ok, `c104 connected\n${proc.output().slice(-2000)}`);
  master.send(`gi ${ca}`);
  const ioa = singleIoa(localSlot(slot), 0);
  // The demo devices have not checked in (no simulator): the answer holds the heartbeat; the device's first values are events.
  await master.until((l) => l.some((x) => x.ev === 'asdu' && x.type === 'C_IC_NA_1' && x.cot === 'ACTIVATION_TERMINATION'), 'the GI answer').catch(withOutput);

  const started = await api('/api/test-faults', { method: 'POST', body: JSON.stringify({ imei, clearAfterSeconds: 5 }) });
  assert.is(started.status, 202, await started.clone().text());
  const faultActive = () => master!.spontaneous().filter((x) => x.ioa === ioa && x.ca === ca);
  await master.until(() => faultActive().length >= 2, 'fault and clearing', 120_000)
    .catch(withOutput);
  const id = ((await started.json()) as TestFaultView).id;
  const { rows } = await db.pool.query<{ date: Date }>(
    'select "date" from device_records where "IMEINumber" = $1 and "TestFaultID" = $2 order by "date"', [imei, id]);
  assert.equal(faultActive().map((x) => [x.type, x.value, x.recordedAt]), [['M_SP_TB_1', 1, rows[0]!.date.getTime()], ['M_SP_TB_1', 0, rows[1]!.date.getTime()]]);
  // The test fault's timeline names the station's send and c104's acknowledgement (its w or t2), as it names DNP3's.
  const iecSteps = async () => (await db.pool.query<{ phase: string; step: string }>(
    `select phase, step from test_fault_steps where test_fault_id = $1 and step like 'iec104%' order by phase, step`, [id])).rows.map((r) => `${r.phase}:${r.step}`);
  await waitFor('the IEC 104 steps recorded', async () => (await iecSteps()).length === 4, { timeoutMs: 120_000, intervalMs: 500 })
    .catch(async (err: Error) => withOutput(new Error(`${err.message}: ${JSON.stringify(await iecSteps())}`)));
  assert.equal(await iecSteps(), ['clear:iec104Confirmed', 'clear:iec104Sent', 'fault:iec104Confirmed', 'fault:iec104Sent']);
  const timeline = (await (await api(`/api/test-faults/${id}`)).json()) as { timeline: { step: string; sinceStepBeforeMs: number | null }[] };
  assert.ok(timeline.timeline.some((t) => t.step === 'iec104Confirmed' && t.sinceStepBeforeMs !== null), JSON.stringify(timeline.timeline));
});

test('a fault stored while no master is connected survives a restart of faultline and reaches the next master once', async () => {
  // Gone before the fault exists: a master still quitting could receive and acknowledge part of it.
  await master?.stop();
  master = undefined;
  const map = (await (await api('/api/dnp3/pointMap')).json()) as { points: { imei: string | null; slot: number }[] };
  const { imei, slot } = map.points.filter((p) => p.imei)[1] as { imei: string; slot: number };
  const started = await api('/api/test-faults', { method: 'POST', body: JSON.stringify({ imei, clearAfterSeconds: 3600 }) });
  assert.is(started.status, 202, await started.clone().text());
  const id = ((await started.json()) as TestFaultView).id;
  const stored = await waitFor('the fault stored', async () => (await db.pool.query<{ date: Date }>(
    'select "date" from device_records where "IMEINumber" = $1 and "TestFaultID" = $2', [imei, id])).rows[0], { timeoutMs: 120_000, intervalMs: 250 });
  // The feed picks the fault up (it polls every second) and the journal writes it (every half second): the undelivered
  // events are kept in Postgres. Then stop, so the next master can only get them from there.
  const pending = async () => Number((await db.pool.query<{ n: string }>(`select count(*) as n from pending_point_events where integration_id = 'north-104'`)).rows[0]!.n);
  await waitFor('the undelivered events journalled', async () => (await pending()) > 0, { timeoutMs: 120_000, intervalMs: 250 })
    .catch(withOutput);
  assert.is(await proc.stop('SIGTERM'), 0, proc.output().slice(-3000));
  await startIt();
  const ca = 1 + bankOf(slot);
  const ioa = singleIoa(localSlot(slot), 0);
  master = new C104Master(iec104Port, certs.master('north'), 60, String(ca));
  await master.until((l) => l.some((x) => x.ev === 'connected'), 'connection').catch(withOutput);
  await master.until(() => master!.spontaneous().some((x) => x.ioa === ioa), 'the fault after the restart', 60_000).catch(withOutput);
  await new Promise((r) => setTimeout(r, 2_000)); // a repeat would follow at once
  assert.equal(master.spontaneous().filter((x) => x.ioa === ioa && x.ca === ca).map((x) => [x.value, x.recordedAt]), [[1, stored.date.getTime()]]);
  // Any I frame from the master carries its N(R): a clock sync acknowledges what it received (else its t2 does).
  master.send(`clock ${ca}`);
  await waitFor('the journal emptied once acknowledged', async () => (await pending()) === 0, { timeoutMs: 120_000, intervalMs: 500 })
    .catch(async (err: Error) => {
      const rows = (await db.pool.query(`select seq, encode(payload, 'hex') as hex from pending_point_events where integration_id = 'north-104' order by seq`)).rows;
      throw new Error(`${err.message}: ${JSON.stringify(rows)}\n${JSON.stringify(master!.lines.slice(-8))}\n${proc.output().slice(-2000)}`);
    });
});

test.run();
