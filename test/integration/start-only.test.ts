// `faultline start --only` on the in-process transport (issue 41, 8a; docs/decisions.md#only-on-the-in-process-transport).
// Without KAFKA_BROKERS the stages' topics are this process's memory: `--only bridge` (or a part of the pipeline)
// acknowledged spool files and SQS messages that nobody in the process would read, and they were lost. Such a
// selection is refused before anything starts (exit 1, a sentence naming what is missing), and the spool file and
// the queue message are still there afterwards. The whole pipeline with the bridge still starts.
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { createQueue, dropQueue, env, newSqsClient, queueDepth, randomName, waitFor } from '../resilience/rig.js';
import { reportTally } from '../helpers/tally.js';

const sqs = newSqsClient();
let db: TestDatabase;
let queueUrl = '';
const dirs: string[] = [];
const running: FaultlineProcess[] = [];
let tried = 0, refused = 0;

test.before(async () => {
  db = await createTestDatabase('start_only');
  queueUrl = await createQueue(sqs, randomName('start-only'));
});

test.after(async () => {
  for (const p of running) await p.stop('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await dropQueue(sqs, queueUrl).catch(() => {});
  sqs.destroy();
  await db?.drop().catch(() => {});
  reportTally('start --only on the in-process transport', { badInputsTried: tried, badInputsRefused: refused });
});

const BODY = JSON.stringify({ imei: '861000000000042', note: 'must not be acknowledged without a reader' });

async function launch(only: string, extra: Record<string, string>): Promise<{ proc: FaultlineProcess; inbox: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'faultline-start-only-'));
  dirs.push(dataDir);
  const inbox = join(dataDir, 'inbox');
  mkdirSync(inbox, { recursive: true });
  writeFileSync(join(inbox, 'one.json'), BODY);
  const proc = startFaultline(['start', '--only', only], {
    DATA_DIR: dataDir, DATABASE_URL: db.url, KAFKA_BROKERS: '', SQS_QUEUE_URL: '', HOST: '127.0.0.1',
    PORT: String(await freePort()), METRICS_PORT: '', LOG_LEVEL: 'info', ...extra,
  });
  running.push(proc);
  return { proc, inbox };
}

/** Exits, or its source took the message: whichever comes first (the old code ran on and acknowledged it). */
const exitedOrTaken = (proc: FaultlineProcess, taken: () => Promise<boolean> | boolean) =>
  waitFor('the process to exit or its message to be taken', async () => proc.child.exitCode !== null || await taken(), { timeoutMs: 120_000, intervalMs: 100 });

for (const only of ['bridge', 'bridge,enrich..fault-compute', 'enrich,dedup,fault-compute']) {
  test(`--only ${only} on the in-process transport with the spool inbox: refused, the spool file kept`, async () => {
    tried++;
    const { proc, inbox } = await launch(only, {});
    await exitedOrTaken(proc, () => readdirSync(inbox).length === 0);
    assert.equal(readdirSync(inbox), ['one.json'], `the spool file kept\n${proc.output().slice(-2000)}`);
    assert.is(await proc.exited, 1, proc.output().slice(-2000));
    assert.match(proc.output(), /on the in-process transport \(KAFKA_BROKERS unset\): the records would have no reader in this process/);
    assert.not.match(proc.output(), /\n\s+at /, 'no stack trace');
    refused++;
  });
}

test('--only bridge on the in-process transport with SQS: refused, the message still in the queue', async () => {
  tried++;
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: BODY }));
  const { proc } = await launch('bridge', { SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: env.SQS_ENDPOINT!, SQS_WAIT_SECONDS: '1' });
  await exitedOrTaken(proc, async () => (await queueDepth(sqs, queueUrl)) === 0);
  assert.is(await queueDepth(sqs, queueUrl), 1, `the message is still in the queue\n${proc.output().slice(-2000)}`);
  assert.is(await proc.exited, 1, proc.output().slice(-2000));
  assert.match(proc.output(), /--only: bridge without the stages enrich, /);
  refused++;
});

test('--only bridge,pipeline on the in-process transport starts, stores the spool file and drains', async () => {
  const { proc, inbox } = await launch('bridge,pipeline', {});
  await waitFor('the spool file taken', () => {
    if (proc.child.exitCode !== null) throw new Error(`exited ${proc.child.exitCode}\n${proc.output().slice(-2000)}`);
    return readdirSync(inbox).length === 0;
  }, { timeoutMs: 120_000, intervalMs: 100 });
  assert.is(await proc.stop('SIGTERM'), 0, proc.output().slice(-2000));
  assert.ok(proc.output().includes('"msg":"drained"'));
});

test.run();
