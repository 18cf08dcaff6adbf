// Nothing lost, nothing doubled: 10,000 queue messages go SQS -> Kafka -> stages -> Postgres while the
// pipeline process is killed with SIGKILL half-way and started again. Afterwards every message is stored
// exactly once: the set of (IMEI, date) in device_records is the set that was sent, and every event is
// there once. Run on the chained default and on the fully split shape (PIPELINE_SPLIT=every), each in a
// Kafka namespace, database and queue of its own.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { infraEnv } from '../../../infra/endpoints.js';
import { createSqsClient } from '../../../stages/bridge/index.js';
import { createFleet, simulate, type FleetMessage } from '../../../simulator/index.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { startFaultline, type FaultlineProcess } from '../../../support/process.js';
import { randomName, waitFor } from '../../../support/wait-for.js';

const TOTAL = 10_000;
const env = { ...infraEnv(), ...process.env } as Record<string, string>;
const sqs = createSqsClient({ queueUrl: env.SQS_QUEUE_URL!, endpoint: env.SQS_ENDPOINT! });
let db: TestDatabase | null = null;
let queueUrl = '';
let proc: FaultlineProcess | null = null;

async function cleanUp(): Promise<void> {
  await proc?.stop('SIGKILL');
  proc = null;
  if (queueUrl) await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => {});
  await db?.drop();
  db = null;
}
test.after(async () => {
  await cleanUp();
  sqs.destroy();
});

for (const shape of [{ name: 'chained', split: '' }, { name: 'fully split', split: 'every' }]) test(`${shape.name}: ${TOTAL} messages, SIGKILL in the middle, restart: every message stored exactly once`, async () => {
  await cleanUp();
  db = await createTestDatabase('sigkill');
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: randomName('sigkill'), Attributes: { VisibilityTimeout: '5' } }))).QueueUrl!;
  const childEnv = {
    KAFKA_BROKERS: env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL!, DATABASE_URL: db!.url, KAFKA_NAMESPACE: randomName('sigkill'),
    SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: env.SQS_ENDPOINT!, SQS_POLLERS: '3', KAFKA_PARTITIONS: '6', PIPELINE_SPLIT: shape.split,
    // A killed member's partitions move to the new process after this long.
    KAFKA_SESSION_TIMEOUT_MS: '6000',
  };
  const stored = async () => Number((await db!.pool.query('select count(*) from device_records')).rows[0].count);

  // Both the expected list and the sender build the same deterministic fleet.
  const options = { devices: 250, seed: 7, eventsPerCheckIn: 1, startTime: Date.UTC(2026, 10, 20), intervalMs: 60_000, firstEventId: 1000 };
  const fleet = createFleet(options);
  const sent: FleetMessage[] = [];
  for (let i = 0; i < TOTAL; i++) sent.push(fleet.next());
  await simulate({ ...options, rate: Infinity, count: TOTAL, to: 'sqs', queueUrl, endpoint: env.SQS_ENDPOINT!, concurrency: 8 }, () => {});

  proc = startFaultline(['start', '--only', 'bridge,pipeline'], childEnv);
  await waitFor('a third of the messages stored', async () => (await stored()) >= TOTAL / 3, { timeoutMs: 180_000, intervalMs: 100 })
    .catch((err: Error) => { throw new Error(`${err.message}\n${proc!.output().slice(-3000)}`); });
  proc.child.kill('SIGKILL');
  await proc.exited;
  const atKill = await stored();
  assert.ok(atKill < TOTAL, `killed in the middle (${atKill} of ${TOTAL} stored)`);

  proc = startFaultline(['start', '--only', 'bridge,pipeline'], childEnv);
  await waitFor(`all ${TOTAL} stored`, async () => (await stored()) >= TOTAL, { timeoutMs: 300_000, intervalMs: 250 })
    .catch((err: Error) => { throw new Error(`${err.message} (have ${atKill} at kill)\n${proc!.output().slice(-3000)}`); });
  // Let anything still in flight (redeliveries after the kill) arrive before counting.
  await waitFor('the queue to be empty', async () => {
    const a = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
    return Number(a.Attributes!.ApproximateNumberOfMessages) + Number(a.Attributes!.ApproximateNumberOfMessagesNotVisible) === 0;
  }, { timeoutMs: 60_000, intervalMs: 250 });
  await new Promise((r) => setTimeout(r, 3000));
  await proc.stop('SIGTERM');

  const rows = (await db!.pool.query(`select "IMEINumber" as imei, "date" from device_records`)).rows as { imei: string; date: Date }[];
  const storedKeys = rows.map((r) => `${r.imei}@${r.date.toISOString()}`).sort();
  const sentKeys = sent.map((m) => `${m.imei}@${new Date(m.message.device_data.date!).toISOString()}`).sort();
  assert.is(rows.length, TOTAL, 'one record per message');
  assert.equal(storedKeys, sentKeys, 'exactly the messages that were sent');
  const events = Number((await db!.pool.query('select count(*) from event_records')).rows[0].count);
  const sentEvents = sent.reduce((n, m) => n + m.message.events.length, 0);
  assert.is(events, sentEvents, 'every event once');
  const rejected = Number((await db!.pool.query('select count(*) from rejected_messages')).rows[0].count);
  assert.is(rejected, 0, 'nothing was refused');
});

test.run();
