// `faultline test-fault <imei>` as an operator runs it (a child process, beside a running `faultline start`):
// the bridge reads an SQS queue (ElasticMQ), the pipeline stores in Postgres, the delivery worker notifies the
// zeep OMS (official WSDL). The running process has no API, so nothing but the waiting command sends the
// clearing check-in: its --clear-after is checked against the times it printed. Then the time-out (a DNP3
// integration that no outstation serves: its steps never come, exit 3) and the refusals.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { infraEnv } from '../../../infra/endpoints.js';
import { createSqsClient } from '../../../stages/bridge/index.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { startFaultline, type FaultlineProcess } from '../../../support/process.js';
import { importDemoData } from '../../../support/reference-data.js';
import { randomName, waitFor } from '../../../support/wait-for.js';
import { ensurePython } from '../../multispeak/python.js';
import { addIntegration } from '../multispeak/integrations.js';
import { startOms, type Oms } from '../multispeak/oms.js';

const infra = infraEnv();
const sqs = createSqsClient({ queueUrl: infra.SQS_QUEUE_URL!, endpoint: infra.SQS_ENDPOINT! });
const dataDir = mkdtempSync(join(tmpdir(), 'test-fault-cli-'));

let db: TestDatabase;
let oms: Oms;
let service: FaultlineProcess;
let queueUrl = '';
let env: Record<string, string> = {};
let imeis: string[] = [];

/** The command run to its end: exit code and everything it printed. */
async function testFault(...args: string[]): Promise<{ code: number | null; out: string }> {
  const p = startFaultline(['test-fault', ...args], env);
  const code = await p.exited;
  return { code, out: p.output() };
}

/** The printed timeline lines of one phase: step text and the time printed for it. */
function printed(out: string, phase: 'fault' | 'clear'): { text: string; at: number; line: string }[] {
  return out.split('\n').filter((l) => l.startsWith(`  ${phase} `)).map((line) => {
    const m = /^ {2}\w+ +(.+?) +(\d{4}-\d\d-\d\dT[\d:.]+Z) {2}\+(\d+) ms/.exec(line);
    if (!m) throw new Error(`not a timeline line: ${line}`);
    return { text: m[1]!, at: Date.parse(m[2]!), line };
  });
}

test.before(async () => {
  await ensurePython();
  db = await createTestDatabase('testfault_cli');
  await importDemoData(db.pool);
  oms = await startOms();
  // This deployment delivers to the zeep OMS only: no DNP3 master, no demo OMS.
  await db.pool.query(`update integrations set enabled = false where kind in ('dnp3', 'multispeak')`);
  await addIntegration(db.pool, { id: 'cli-oms', operation: 'SCADAStatusChangedNotificationByPointID', version: '4.1', endpoint: oms.url });
  imeis = (await db.pool.query<{ IMEINumber: string }>(`select "IMEINumber" from device_information where "OrganizationID" = 'north' order by 1 limit 3`)).rows.map((r) => r.IMEINumber);
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: randomName('testfaultcli') }))).QueueUrl!;
  env = {
    DATABASE_URL: db.url, SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: infra.SQS_ENDPOINT!, SQS_DLQ_URL: '', SQS_WAIT_SECONDS: '1',
    KAFKA_BROKERS: '', SCHEMA_REGISTRY_URL: '', DATA_DIR: dataDir,
    FAULTLINE_SECRET_KEYS: `test:${Buffer.alloc(32, 7).toString('base64')}`, FAULTLINE_FAST_RETRY: '1', LOG_LEVEL: 'warn',
  };
  // Intake, pipeline and delivery: no API in this process, so no clearer but the command's.
  service = startFaultline(['start', '--only', 'bridge,pipeline,delivery'], env);
  await waitFor('faultline start', () => service.output().includes('Ctrl-C stops it') || service.child.exitCode !== null, { timeoutMs: 60_000, intervalMs: 100 });
  if (service.child.exitCode !== null) throw new Error(`faultline start exited:\n${service.output()}`);
});

test.after(async () => {
  await service?.stop('SIGTERM');
  await oms?.stop();
  if (queueUrl) await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => {});
  sqs.destroy();
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('test-fault <imei> --clear-after 5: prints each step of both phases as recorded, sends the clearing check-in itself when due, exits 0', async () => {
  const imei = imeis[0]!;
  const started = Date.now();
  const { code, out } = await testFault(imei, '--clear-after', '5', '--timeout', '45');
  assert.is(code, 0, out);
  const id = Number(/^test fault (\d+) for (\d+) sent to SQS (\S+); it clears itself after 5 s$/m.exec(out)?.[1]);
  assert.ok(id > 0, out);
  assert.match(out, `sent to SQS ${queueUrl};`);
  assert.match(out, new RegExp(`^test fault ${id}: complete \\(no DNP3 integration, no IEC 104 integration, OMS\\)$`, 'm'));

  const texts = ['queued (the queue accepted the synthetic check-in)', 'stored by the pipeline', 'OMS answered the notification'];
  const fault = printed(out, 'fault');
  const clear = printed(out, 'clear');
  assert.equal(fault.map((l) => l.text), texts, out);
  assert.equal(clear.map((l) => l.text), texts, out);
  for (const l of [...fault, ...clear].filter((x) => x.text.startsWith('OMS'))) assert.match(l.line, /"status":200,.*"integration":"cli-oms"/);
  for (const l of [...fault.slice(1), ...clear.slice(1)]) assert.match(l.line, /\(\d+ ms after the step before\)/);
  // Each step printed once, in the order of the timeline: fault before clear.
  assert.ok(out.indexOf('  clear ') > out.lastIndexOf('  fault '), out);

  // The clearing check-in went out when due, 5 s after the start, sent by the command (no API runs).
  const row = (await db.pool.query<{ started_at: Date; clear_due_at: Date; clear_sent_at: Date }>('select started_at, clear_due_at, clear_sent_at from test_faults where id = $1', [id])).rows[0]!;
  const due = row.clear_due_at.getTime() - row.started_at.getTime();
  assert.ok(Math.abs(due - 5000) < 500, `due ${due} ms after it started`);
  assert.ok(clear[0]!.at >= row.clear_due_at.getTime(), `clear queued ${new Date(clear[0]!.at).toISOString()} before due ${row.clear_due_at.toISOString()}`);
  // Sent on its due time, not on a later round: far inside the test's own timeline on a loaded machine too.
  assert.ok(clear[0]!.at - row.clear_due_at.getTime() < 30_000, `clear queued ${clear[0]!.at - row.clear_due_at.getTime()} ms after due`);
  assert.ok(row.clear_sent_at.getTime() >= started);

  // Stored as a test: the fault and its clearing; the OMS got both, marked TEST.
  const records = (await db.pool.query<{ TestFaultID: number; ActualOngoingFault: number; State: number }>(
    'select "TestFaultID", "ActualOngoingFault", "State" from device_records where "IMEINumber" = $1 order by "date"', [imei])).rows;
  assert.equal(records.map((r) => [r.TestFaultID, r.ActualOngoingFault > 0, r.State]), [[id, true, 3], [id, false, 0]]);
  const received = (await oms.received()).filter((r) => r.operation === 'SCADAStatusChangedNotificationByPointID');
  assert.is(received.length, 2);
  for (const r of received) {
    assert.equal(r.schemaErrors, []);
    const status = (Array.isArray(r.body.scadaStatus) ? r.body.scadaStatus[0] : r.body.scadaStatus) as Record<string, unknown>;
    assert.match(String(status.comments), new RegExp(`^TEST \\(faultline test fault ${id}`));
  }
});

test('past --timeout with a step that never comes (a DNP3 integration no outstation serves): prints what was recorded, says so, exits 3', async () => {
  await db.pool.query(`update integrations set enabled = true where id = 'north-scada'`);
  try {
    const imei = imeis[1]!;
    const { code, out } = await testFault(imei, '--clear-after', '5', '--timeout', '8');
    assert.is(code, 3, out);
    const id = Number(/^test fault (\d+) for /m.exec(out)?.[1]);
    assert.match(out, new RegExp(`^test fault ${id}: not complete after 8 s; GET /api/test-faults/${id} shows it later$`, 'm'));
    assert.equal(printed(out, 'fault').map((l) => l.text), ['queued (the queue accepted the synthetic check-in)', 'stored by the pipeline', 'OMS answered the notification']);
    assert.not.match(out, 'DNP3 event');
    // It still sent the clearing check-in, due before the time-out.
    assert.ok(printed(out, 'clear').length >= 1, out);
    assert.ok((await db.pool.query('select clear_sent_at from test_faults where id = $1', [id])).rows[0].clear_sent_at !== null);
  } finally {
    await db.pool.query(`update integrations set enabled = false where id = 'north-scada'`);
  }
});

test('refusals name the problem and exit 1: not an IMEI, not registered, --clear-after or --timeout out of range', async () => {
  const cases: [string[], RegExp][] = [
    [['12ab'], /give the device's IMEI/],
    [[], /give the device's IMEI/],
    [['861999999999999'], /device 861999999999999 is not registered/],
    [[imeis[2]!, '--clear-after', '2'], /--clear-after: "2" is not a whole number of seconds from 5 to 3600/],
    [[imeis[2]!, '--timeout', 'soon'], /--timeout: "soon" is not a positive number of seconds/],
  ];
  for (const [args, message] of cases) {
    const { code, out } = await testFault(...args);
    assert.is(code, 1, `${args.join(' ')}: ${out}`);
    assert.match(out, message, out);
    assert.not.match(out, /\n\s+at /, 'no stack trace');
  }
});

test('leaving before the clearing check-in is due (--timeout 3, --clear-after 60): exit 3, says when it is due and who sends it; the device cannot be tested again meanwhile', async () => {
  const imei = imeis[2]!;
  const { code, out } = await testFault(imei, '--clear-after', '60', '--timeout', '3');
  assert.is(code, 3, out);
  const id = Number(/^test fault (\d+) for /m.exec(out)?.[1]);
  const { clear_due_at: due } = (await db.pool.query<{ clear_due_at: Date }>('select clear_due_at from test_faults where id = $1', [id])).rows[0]!;
  assert.match(out, `test fault ${id}: its clearing check-in is due at ${due.toISOString()}; a running \`faultline start\` with the API sends it`);
  assert.equal(printed(out, 'fault').map((l) => l.text).slice(0, 2), ['queued (the queue accepted the synthetic check-in)', 'stored by the pipeline']);
  assert.equal(printed(out, 'clear'), []);
  // Its fault is stored (the API answers 409): a second command is refused.
  const again = await testFault(imei);
  assert.is(again.code, 1, again.out);
  assert.match(again.out, `faultline: Device ${imei} reports a fault now (ActualOngoingFault 4): a test fault would change nothing`);
});

test.run();
