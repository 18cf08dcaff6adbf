// Graceful drain (issue 18 point 3): two pipeline processes share the chained group faultline.enrich on the
// single broker with the default 30 s session timeout. One is stopped with SIGTERM while messages flow. It
// must answer /readyz 503 while draining, exit 0 within a bounded time, leave the group at once (one member
// left within seconds, not after 30 s), and the partitions it held must be consumed again by the other
// process within seconds. Afterwards every message is stored exactly once (rows compared with the sent ones).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TOPICS } from '../../schemas/avro/topics.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { brokers, resetPipelineTopics } from '../../support/kafka.js';
import { reportTally } from '../helpers/tally.js';
import { committedOffsets, fleetProcess, groupAssignment, type FleetProcess } from './fleet.js';
import { buildMessages, compareWithSent, consumerLag, createQueue, dropQueue, env, log, newSqsClient, randomName, sleep, startSender, waitFor, type Outcome } from './rig.js';

const TOTAL = 3000;
const BAD = 6;
const RATE = 150;
const SESSION_TIMEOUT_MS = 30_000;
const GROUP = 'faultline.enrich';

const sqs = newSqsClient();
let queueUrl = '';
let db: TestDatabase;
const procs: FleetProcess[] = [];
let outcome: Outcome | null = null;
const messages = buildMessages(TOTAL, BAD, 23);
const goodCount = messages.filter((m) => m.good).length;

test.before(async () => {
  await resetPipelineTopics();
  db = await createTestDatabase('drain');
  queueUrl = await createQueue(sqs, randomName('drain'));
});

test.after(async () => {
  for (const p of procs) await p.close().catch(() => {});
  reportTally('resilience/drain', outcome && { faultsInjected: 1, messagesSent: TOTAL, messagesStored: outcome.messagesStored, duplicated: outcome.duplicated, lost: outcome.lost });
  await dropQueue(sqs, queueUrl);
  sqs.destroy();
  await db?.drop().catch(() => {});
});

const stored = async () => Number((await db.pool.query('select count(*) from device_records')).rows[0].count);

test('SIGTERM drains: /readyz 503, the group is left at once, its partitions are consumed again within seconds, nothing lost or duplicated', async () => {
  // LOG_LEVEL info: the test waits for the process's own "draining" line.
  const common = { KAFKA_BROKERS: env.KAFKA_BROKERS!, DATABASE_URL: db.url, SQS_QUEUE_URL: queueUrl, KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS), LOG_LEVEL: 'info' };
  const a = await fleetProcess('pipeline-a', 'bridge,pipeline,api', common);
  procs.push(a);
  const b = await fleetProcess('pipeline-b', 'pipeline,api', common);
  procs.push(b);
  const sender = startSender(sqs, () => queueUrl, messages, RATE);
  try {
    await waitFor('both processes in the group with partitions', async () => {
      const g = await groupAssignment(brokers(), GROUP, TOPICS.raw);
      return g.state === 'Stable' && g.members.length === 2 && g.members.every((m) => m.partitions.length > 0);
    }, { timeoutMs: 60_000, intervalMs: 250 });
    await waitFor('a third of the messages stored', async () => (await stored()) >= goodCount / 3, { timeoutMs: 120_000, intervalMs: 250 });

    const before = await groupAssignment(brokers(), GROUP, TOPICS.raw);
    const offsetsAtTerm = await committedOffsets(brokers(), GROUP, TOPICS.raw);
    log(`group before SIGTERM: ${JSON.stringify(before.members.map((m) => m.partitions))}`);

    const t0 = Date.now();
    const exit = b.term();
    // Once the process has taken the signal (it logs "draining"), /readyz answers 503 "draining" for as long as
    // it answers at all (it may be closed already: a fast drain). Asked before that, it could still say ready.
    await waitFor('the drain to begin', async () => b.output().includes('"msg":"draining"'), { timeoutMs: 10_000, intervalMs: 5 });
    const during = await fetch(`http://127.0.0.1:${b.port}/readyz`).then(async (r) => ({ status: r.status, body: await r.json() as { status: string } })).catch(() => null);
    let leftAfter = NaN;
    await waitFor('the group to have one member', async () => {
      const g = await groupAssignment(brokers(), GROUP, TOPICS.raw);
      if (g.members.length === 1 && g.state === 'Stable') { leftAfter = Date.now() - t0; return true; }
      return false;
    }, { timeoutMs: SESSION_TIMEOUT_MS + 10_000, intervalMs: 100 });
    // B's partitions: those of the member that left (A keeps its member id through the rebalance).
    const after = await groupAssignment(brokers(), GROUP, TOPICS.raw);
    const bPartitions = before.members.find((m) => m.memberId !== after.members[0]!.memberId)!.partitions;
    let consumedAgainAfter = NaN;
    await waitFor('B\'s partitions consumed again', async () => {
      const now = await committedOffsets(brokers(), GROUP, TOPICS.raw);
      if (bPartitions.every((p) => (now.get(p) ?? -1) > (offsetsAtTerm.get(p) ?? -1))) { consumedAgainAfter = Date.now() - t0; return true; }
      return false;
    }, { timeoutMs: SESSION_TIMEOUT_MS + 20_000, intervalMs: 100 });
    const { code, ms } = await exit;
    log(`SIGTERM: exit ${code} after ${ms} ms; /readyz during the drain ${during ? `${during.status} ${during.body.status}` : 'closed'}; group left after ${leftAfter} ms; partitions ${bPartitions.join(',')} consumed again after ${consumedAgainAfter} ms`);
    assert.is(code, 0, `drained and exited 0\n${b.output().slice(-2000)}`);
    assert.ok(ms < 15_000, `exit within 15 s (took ${ms} ms)`);
    if (during) assert.equal([during.status, during.body.status], [503, 'draining'], '/readyz says draining');
    assert.ok(leftAfter < 5_000, `left the group within 5 s, not after the ${SESSION_TIMEOUT_MS / 1000} s session timeout (took ${leftAfter} ms)`);
    assert.ok(consumedAgainAfter < 10_000, `its partitions consumed again within 10 s (took ${consumedAgainAfter} ms)`);

    await sender.done;
    await waitFor('every message stored or dead-lettered', async () => (await stored()) >= goodCount && Number((await db.pool.query('select count(*) from rejected_messages')).rows[0].count) >= BAD, { timeoutMs: 120_000, intervalMs: 500 });
    await waitFor('zero lag', async () => Object.values(await consumerLag()).every((n) => n === 0), { timeoutMs: 60_000, intervalMs: 500 });
    await sleep(2000);
  } finally {
    sender.stop();
  }
  outcome = await compareWithSent(db, messages);
  log(`sent ${outcome.messagesSent}, accounted for ${outcome.messagesStored}, duplicated ${outcome.duplicated}, lost ${outcome.lost}`);
  assert.equal(outcome.problems, []);
  assert.is(outcome.lost, 0);
  assert.is(outcome.duplicated, 0);
});

test.run();
