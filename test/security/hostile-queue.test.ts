// Hostile queue input through the real path (issue 7, part 3): the generated corpus (queue-corpus.ts, 200+
// bad messages and a few odd-but-valid ones) is sent to a fresh ElasticMQ queue, read by the SQS bridge of a
// `faultline start` process running every stage on the real Kafka and Postgres. Bodies SQS itself refuses
// (over its size limit, raw control characters) go through the other real source, the spool inbox, read by
// a second `faultline start --only bridge`. Good check-ins for the same IMEIs (so the same partitions) are
// mixed in, and more are sent after the corpus: all must be stored. Each bad message is dead-lettered once
// with its code and a reason naming the problem; each odd-but-valid one is stored exactly; neither process
// dies; the queue ends empty; no log line carries a fixture secret.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { infraEnv } from '../../infra/endpoints.js';
import { createSqsClient } from '../../stages/bridge/sqs-client.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { resetPipelineTopics } from '../../support/kafka.js';
import { startFaultline, type FaultlineProcess } from '../../support/process.js';
import { importDemoData } from '../../support/reference-data.js';
import { reportTally } from '../helpers/tally.js';
import { randomName, waitFor } from '../../support/wait-for.js';
import { corpus, good, IMEIS, type Entry, type HostileEntry } from './queue-corpus.js';
import { findSecrets } from './secrets.js';

const env = infraEnv();
const endpoint = process.env.SQS_ENDPOINT ?? env.SQS_ENDPOINT!;
const sqs = createSqsClient({ queueUrl: `${endpoint}/000000000000/admin`, endpoint });
let db: TestDatabase;
let queueUrl = '';
let inbox = '';
let pipeline: FaultlineProcess;
let spoolBridge: FaultlineProcess;

const entries = corpus();
const bad = entries.filter((e) => e.kind === 'bad');
const mixedGood: HostileEntry[] = [];
/** Entry name -> the id its dead letter carries (SQS MessageId, or the spool file name). */
const messageIds = new Map<string, string>();
const viaSpool: string[] = [];
const counts = { badRefused: 0, sent: 0, stored: 0, duplicated: 0, lost: 0 };

test.before(async () => {
  await resetPipelineTopics(['dnp3.north', 'dnp3.south']);
  db = await createTestDatabase('hostile');
  await importDemoData(db.pool);
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: randomName('hostile'), Attributes: { VisibilityTimeout: '30' } }))).QueueUrl!;
  inbox = mkdtempSync(join(tmpdir(), 'faultline-hostile-'));
  const common = {
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL ?? env.SCHEMA_REGISTRY_URL!,
    DATABASE_URL: db.url, KAFKA_PARTITIONS: '3', LOG_LEVEL: 'info', DEMO_DATA: '0', SIMULATE: '0', DATA_DIR: inbox,
  };
  pipeline = startFaultline(['start', '--only', 'bridge,enrich,dedup,fault-compute,persist,notify,rejected'], { ...common, SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: endpoint });
  await waitFor('the pipeline process to start', () => pipeline.output().includes('faultline is running'), { timeoutMs: 60_000 });
  spoolBridge = startFaultline(['start', '--only', 'bridge'], { ...common, SQS_QUEUE_URL: '', INBOX_DIR: join(inbox, 'spool') });
  await waitFor('the spool bridge to start', () => spoolBridge.output().includes('faultline is running'), { timeoutMs: 60_000 });
});

test.after(async () => {
  await pipeline?.stop();
  await spoolBridge?.stop();
  if (queueUrl) await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => {});
  sqs.destroy();
  await db?.drop();
  if (inbox) rmSync(inbox, { recursive: true, force: true });
  reportTally('hostile-queue', {
    badInputsTried: bad.length, badInputsRefused: counts.badRefused,
    messagesSent: counts.sent, messagesStored: counts.stored, duplicated: counts.duplicated, lost: counts.lost,
  });
});

/** SQS first; a body SQS refuses (size, characters) goes to the spool inbox (write, then rename). */
async function send(e: Entry): Promise<void> {
  try {
    const out = await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: e.body }));
    messageIds.set(e.name, out.MessageId!);
  } catch (err) {
    const name = (err as Error).name;
    // A body over SQS's 256 KiB limit may also meet a closed connection: the server answers and hangs up while
    // the client is still writing it, and which the client sees first depends on the machine's load.
    const hungUpOnTooLarge = Buffer.byteLength(e.body) > 256 * 1024 && /EPIPE|ECONNRESET|socket hang up/.test((err as Error).message);
    assert.ok(/InvalidMessageContents|InvalidAttributeValue|MessageTooLong|InvalidParameterValue/.test(name) || /too long|size/i.test((err as Error).message) || hungUpOnTooLarge,
      `SQS refused ${e.name} for its content, not ${name}: ${(err as Error).message}`);
    const file = `${e.name}.json`;
    writeFileSync(join(inbox, 'spool', `${file}.tmp`), e.body);
    renameSync(join(inbox, 'spool', `${file}.tmp`), join(inbox, 'spool', file));
    messageIds.set(e.name, file);
    viaSpool.push(e.name);
  }
}

async function sendAll(list: Entry[], parallel = 8): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < list.length) await send(list[next++]!);
  }));
}

async function storedRows(list: HostileEntry[]): Promise<Map<string, Record<string, unknown>[]>> {
  const { rows } = await db.pool.query(
    `select r.*, to_char(r.date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as iso from device_records r where ("IMEINumber", date) in (select * from unnest($1::text[], $2::timestamptz[]))`,
    [list.map((e) => e.imei), list.map((e) => e.date)],
  );
  const by = new Map<string, Record<string, unknown>[]>();
  for (const row of rows) {
    const key = `${row.IMEINumber as string} ${row.iso as string}`;
    by.set(key, [...(by.get(key) ?? []), row]);
  }
  return by;
}
const keyOf = (e: HostileEntry) => `${e.imei} ${new Date(e.date).toISOString()}`;

function alive(): void {
  assert.is(pipeline.child.exitCode, null, `the pipeline process is still running\n${pipeline.output().slice(-3000)}`);
  assert.is(spoolBridge.child.exitCode, null, `the spool bridge is still running\n${spoolBridge.output().slice(-3000)}`);
}

test(`${bad.length} bad messages among good ones for the same IMEIs: each dead-lettered or stored, nothing blocks`, async () => {
  assert.ok(bad.length >= 200, `at least 200 bad messages (${bad.length})`);
  // A good check-in for a corpus IMEI before every fourth corpus entry.
  const mixed: Entry[] = [];
  entries.forEach((e, i) => {
    if (i % 4 === 0) { const g = good(IMEIS[(i / 4) % IMEIS.length]!, `among-${i}`); mixedGood.push(g); mixed.push(g); }
    mixed.push(e);
  });
  const started = Date.now();
  await sendAll(mixed);
  assert.ok(viaSpool.length >= 3, `the bodies SQS refuses went through the spool inbox (${viaSpool.join(', ')})`);

  const hostile = [...entries.filter((e): e is HostileEntry => e.kind === 'hostile'), ...mixedGood];
  const ids = bad.map((e) => messageIds.get(e.name)!);
  await waitFor('every bad message dead-lettered and every valid one stored', async () => {
    alive();
    const dead = Number((await db.pool.query(`select count(distinct message_id) as n from rejected_messages where message_id = any($1)`, [ids])).rows[0].n);
    const stored = (await storedRows(hostile)).size;
    return dead >= bad.length && stored >= hostile.length;
  }, { timeoutMs: 120_000, intervalMs: 500 }).catch(async (err: Error) => {
    const got = new Set((await db.pool.query(`select message_id from rejected_messages`)).rows.map((r) => r.message_id as string));
    const missing = bad.filter((e) => !got.has(messageIds.get(e.name)!)).map((e) => e.name);
    const rows = await storedRows(hostile);
    const notStored = hostile.filter((e) => !rows.has(keyOf(e))).map((e) => e.name);
    const other = (await db.pool.query(`select message_id, code, reason from rejected_messages where not (message_id = any($1))`, [ids])).rows;
    throw new Error(`${err.message}\nnot dead-lettered: ${missing.join(', ')}\nnot stored: ${notStored.join(', ')}\nunexpected dead letters: ${JSON.stringify(other).slice(0, 2000)}`);
  });
  console.log(`corpus of ${entries.length} (+${mixedGood.length} good) through SQS/spool -> Kafka -> Postgres in ${Date.now() - started} ms; ${viaSpool.length} via the spool inbox`);

  // Each bad message: one dead letter, its code, a reason naming the problem, a body kept.
  const { rows } = await db.pool.query(`select message_id, stage, code, reason, imei, length(body) as len from rejected_messages where message_id = any($1)`, [ids]);
  const problems: string[] = [];
  for (const e of bad) {
    const mine = rows.filter((r) => r.message_id === messageIds.get(e.name));
    if (mine.length !== 1) { problems.push(`${e.name}: ${mine.length} dead letters`); counts.duplicated += Math.max(0, mine.length - 1); continue; }
    const r = mine[0]!;
    if (r.code !== e.code) problems.push(`${e.name}: code ${r.code as string}, expected ${e.code} (${r.reason as string})`);
    else if (!e.reason.test(r.reason as string)) problems.push(`${e.name}: reason ${JSON.stringify(r.reason)} does not match ${e.reason}`);
    else if (!(Number(r.len) > 0) && e.body.length > 0) problems.push(`${e.name}: body not kept`);
    else if (/\bat .+\.ts:\d+|Error: |\n\s+at /.test(r.reason as string)) problems.push(`${e.name}: a stack trace in the reason`);
    else counts.badRefused++;
  }
  assert.equal(problems, [], problems.join('\n'));

  // Each odd-but-valid and good one: stored once, exactly as sent.
  const stored = await storedRows(hostile);
  for (const e of hostile) {
    const found = stored.get(keyOf(e)) ?? [];
    counts.sent++;
    if (found.length === 0) { counts.lost++; continue; }
    counts.stored++;
    counts.duplicated += found.length - 1;
    for (const [column, value] of Object.entries(e.stored)) assert.equal(found[0]![column], value, `${e.name}: ${column}`);
  }
  for (const e of hostile.filter((h) => h.eventTypes)) {
    const { rows: events } = await db.pool.query(`select "EventType" from event_records where "DeviceRecordID" = $1`, [stored.get(keyOf(e))![0]!.RecordID]);
    for (const type of e.eventTypes!) assert.ok(events.some((r) => r.EventType === type), `${e.name}: event ${type} stored`);
  }
  assert.is(counts.lost, 0);
  assert.is(counts.duplicated, 0);
  // Nothing bad was stored: every device record is one of the valid messages.
  // (Scoped to the corpus IMEIs and its October 2026 dates, so records of a suite sharing the broker can't confuse it.)
  const ours = await db.pool.query(`select count(*) from device_records where "IMEINumber" = any($1) and date >= '2026-10-01' and date < '2026-10-02'`, [IMEIS]);
  assert.is(Number(ours.rows[0].count), hostile.length);
  alive();
});

test('after the corpus: a good check-in for every IMEI on every partition is still stored', async () => {
  const after = IMEIS.flatMap((imei) => [good(imei, 'after-1'), good(imei, 'after-2')]);
  await sendAll(after);
  await waitFor('the good messages after the corpus stored', async () => { alive(); return (await storedRows(after)).size === after.length; }, { timeoutMs: 60_000, intervalMs: 250 });
  const rows = await storedRows(after);
  for (const e of after) {
    counts.sent++;
    const n = rows.get(keyOf(e))?.length ?? 0;
    if (n === 0) counts.lost++; else counts.stored++;
    counts.duplicated += Math.max(0, n - 1);
  }
  assert.is(counts.lost, 0);
  // The queue is empty: nothing stuck in flight, nothing left behind.
  await waitFor('the queue to be empty', async () => {
    const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
    return Attributes.ApproximateNumberOfMessages === '0' && Attributes.ApproximateNumberOfMessagesNotVisible === '0';
  }, { timeoutMs: 10_000 });
  alive();
});

test('the service logs: no crash, no stack, no fixture secret', () => {
  const logs = pipeline.output() + spoolBridge.output();
  assert.not.match(logs, /Uncaught|unhandled|FATAL|"level":60/i);
  assert.equal(findSecrets(logs), []);
});

test.run();
