// NOT YET A SUITE (named .wip.ts so test/run.ts does not pick it up): its last full run here stored 19,956 of
// 19,960 good messages with lag 0 (4 lost, cause not found yet) and must pass before it is renamed
// cluster.test.ts. Run it by hand: node --import tsx test/resilience/cluster.wip.ts.
//
// Production shape (issue 18 point 2): the three-broker cluster (infra/kafka-cluster.sh, replication 3,
// min.insync.replicas 2) and faultline split as a deployment runs it: two bridge processes, two pipeline
// processes (chained) and two API processes, each `faultline start --only ...` with its own /readyz. While
// CLUSTER_MESSAGES (default 20,000, the known-bad ones among them) flow from SQS, three faults hit in turn:
//   1. SIGKILL of one broker (leaders move; producers and consumers carry on), started again later;
//   2. SIGKILL of one pipeline process (its partitions move to the other within the session timeout);
//   3. a rolling restart of every faultline process, one at a time, each drained with SIGTERM.
// Afterwards every good message is stored exactly once, the bad ones dead-lettered once, lag is 0, and the
// survivors' /readyz stayed ready throughout (a process is only excused while it is itself being restarted).
// SQS-to-stored latency during each fault (send time to device_records."CreatedDate") is printed as p50/p99/max.
// Not covered here: the MultiSpeak delivery worker and the DNP3 outstation in this fleet (see the report in
// docs/decisions.md#production-shape).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kafkaClusterBrokers } from '../../infra/endpoints.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { resetPipelineTopics } from '../helpers/kafka.js';
import { reportTally } from '../helpers/tally.js';
import { fleetProcess, percentiles, type FleetProcess } from './fleet.js';
import { buildMessages, compareWithSent, consumerLag, createQueue, dropQueue, log, newSqsClient, randomName, sleep, startSender, waitFor, type Outcome, type Sample } from './rig.js';

const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const cluster = (...args: string[]) => run('bash', ['infra/kafka-cluster.sh', ...args], { cwd: root, env: process.env, timeout: 180_000 });

const TOTAL = Number(process.env.CLUSTER_MESSAGES ?? 20_000);
const BAD = Math.max(4, Math.round(TOTAL / 500));
const RATE = 200;
// consumerLag and resetPipelineTopics read KAFKA_BROKERS: this suite's Kafka is the cluster.
process.env.KAFKA_BROKERS = kafkaClusterBrokers();
const BROKERS = process.env.KAFKA_BROKERS;

const sqs = newSqsClient();
let queueUrl = '';
let db: TestDatabase;
const fleet: FleetProcess[] = [];
let outcome: Outcome | null = null;
let faultsInjected = 0;
const messages = buildMessages(TOTAL, BAD, 31);
const goodCount = messages.filter((m) => m.good).length;

test.before(async () => {
  await cluster('up');
  await resetPipelineTopics();
  db = await createTestDatabase('cluster');
  queueUrl = await createQueue(sqs, randomName('cluster'));
});

test.after(async () => {
  await Promise.all(fleet.map((p) => p.close().catch(() => {})));
  reportTally('resilience/cluster', { faultsInjected, messagesSent: TOTAL, messagesStored: outcome?.messagesStored ?? 0, duplicated: outcome?.duplicated ?? 0, lost: outcome ? outcome.lost : TOTAL });
  await dropQueue(sqs, queueUrl);
  sqs.destroy();
  await db?.drop().catch(() => {});
  // The cluster's three JVMs are stopped again: the suites after this one use the single broker.
  await cluster('down').catch((err: Error) => console.error(`kafka-cluster down failed: ${err.message}`));
});

const stored = async () => Number((await db.pool.query('select count(*) from device_records')).rows[0].count);

test(`${TOTAL} messages on three brokers through a broker kill, a pipeline kill and a rolling restart: each stored once`, async () => {
  const common = { KAFKA_BROKERS: BROKERS, DATABASE_URL: db.url, SQS_QUEUE_URL: queueUrl, KAFKA_SESSION_TIMEOUT_MS: '10000' };
  const shape: [string, string][] = [['bridge-1', 'bridge,api'], ['bridge-2', 'bridge,api'], ['pipeline-1', 'pipeline,api'], ['pipeline-2', 'pipeline,api'], ['api-1', 'api'], ['api-2', 'api']];
  for (const [name, only] of shape) fleet.push(await fleetProcess(name, only, common));
  const byName = (n: string) => fleet.find((p) => p.name === n)!;

  // /readyz of every process every 300 ms; `excused` names the process being restarted (its own gap is expected).
  const samples = new Map<string, (Sample & { excused: boolean })[]>(fleet.map((p) => [p.name, []]));
  let excused = '';
  let probing = true;
  const probe = (async () => {
    while (probing) {
      await Promise.all(fleet.map(async (p) => {
        const at = Date.now();
        const wasExcused = excused === p.name;
        try {
          const res = await fetch(`http://127.0.0.1:${p.port}/readyz`, { signal: AbortSignal.timeout(4000) });
          const body = (await res.json()) as { checks: Record<string, string> };
          samples.get(p.name)!.push({ at, state: res.status === 200 ? 'ready' : 'unavailable', down: Object.entries(body.checks ?? {}).filter(([, v]) => v !== 'up').map(([k]) => k), excused: wasExcused || excused === p.name });
        } catch {
          samples.get(p.name)!.push({ at, state: 'unreachable', down: ['process'], excused: wasExcused || excused === p.name });
        }
      }));
      await sleep(300);
    }
  })();

  // When each message went to SQS: polled from the sender, good enough at 10 ms.
  const sentAt = new Map<string, number>();
  const sender = startSender(sqs, () => queueUrl, messages, RATE);
  let stamped = 0;
  const stamping = setInterval(() => {
    const n = sender.sent();
    for (; stamped < n; stamped++) {
      const g = messages[stamped]!.good;
      if (g) sentAt.set(`${g.imei}@${new Date(String(g.message.device_data.date)).toISOString()}`, Date.now());
    }
  }, 10);

  const windows: { name: string; from: number; to: number }[] = [];
  const fault = async (name: string, mark: number, inject: () => Promise<void>) => {
    await waitFor(`${mark} stored before "${name}"`, async () => (await stored()) >= mark, { timeoutMs: 240_000, intervalMs: 250 });
    log(`fault: ${name} (sent ${sender.sent()}, stored ${await stored()})`);
    const from = Date.now();
    faultsInjected++;
    await inject();
    windows.push({ name, from, to: Date.now() });
    log(`  done after ${((Date.now() - from) / 1000).toFixed(1)} s; stored ${await stored()}`);
  };

  const t0 = Date.now();
  try {
    await fault('SIGKILL of broker 2, restarted 20 s later', Math.floor(goodCount * 0.15), async () => {
      await cluster('kill', '2');
      await sleep(20_000);
      await cluster('start', '2');
    });
    await fault('SIGKILL of pipeline-1, restarted 5 s later', Math.floor(goodCount * 0.35), async () => {
      const p = byName('pipeline-1');
      excused = p.name;
      await p.kill();
      await sleep(5_000);
      await p.start();
      excused = '';
    });
    await fault('rolling restart of every process (SIGTERM, drained)', Math.floor(goodCount * 0.5), async () => {
      for (const p of fleet) {
        excused = p.name;
        const { code, ms } = await p.term();
        log(`  ${p.name}: drained, exit ${code} after ${ms} ms`);
        assert.is(code, 0, `${p.name} drained and exited 0\n${p.output().slice(-2000)}`);
        await p.start();
        await sleep(1000);
        excused = '';
      }
    });

    await sender.done;
    await waitFor(`all ${goodCount} good stored and ${BAD} bad dead-lettered`, async () =>
      (await stored()) >= goodCount && Number((await db.pool.query('select count(*) from rejected_messages')).rows[0].count) >= BAD, { timeoutMs: 300_000, intervalMs: 500 });
    let lag: Record<string, number> = {};
    await waitFor('zero lag', async () => { lag = await consumerLag(); return Object.values(lag).every((n) => n === 0); }, { timeoutMs: 60_000, intervalMs: 500 })
      .catch((err: Error) => { throw new Error(`${err.message}: ${JSON.stringify(lag)}`); });
    await sleep(3000);
    lag = await consumerLag();
    log(`consumer lag ${JSON.stringify(lag)}; run took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    assert.ok(Object.values(lag).every((n) => n === 0), `lag 0: ${JSON.stringify(lag)}`);
  } finally {
    clearInterval(stamping);
    sender.stop();
    probing = false;
    await probe;
  }

  // Latency from SQS to stored, for the messages sent during each fault window and outside them.
  const rows = (await db.pool.query(`select "IMEINumber" as imei, "date", "CreatedDate" as created from device_records`)).rows as { imei: string; date: Date; created: Date }[];
  const latency = rows.map((r) => {
    const sent = sentAt.get(`${r.imei}@${new Date(r.date).toISOString()}`);
    return sent === undefined ? null : { sent, ms: new Date(r.created).getTime() - sent };
  }).filter((x): x is { sent: number; ms: number } => x !== null);
  for (const w of windows) {
    const p = percentiles(latency.filter((l) => l.sent >= w.from && l.sent <= w.to).map((l) => l.ms));
    log(`LATENCY "${w.name}": ${p.n} messages, SQS to stored p50 ${p.p50} ms, p99 ${p.p99} ms, max ${p.max} ms`);
  }
  const calm = percentiles(latency.filter((l) => windows.every((w) => l.sent < w.from || l.sent > w.to)).map((l) => l.ms));
  log(`LATENCY outside the faults: ${calm.n} messages, p50 ${calm.p50} ms, p99 ${calm.p99} ms, max ${calm.max} ms`);

  outcome = await compareWithSent(db, messages);
  log(`sent ${outcome.messagesSent}, accounted for ${outcome.messagesStored}, duplicated ${outcome.duplicated}, lost ${outcome.lost}`);
  if (outcome.problems.length) log(outcome.problems.slice(0, 20).join('\n'));
  assert.is(outcome.lost, 0, 'nothing lost');
  assert.is(outcome.duplicated, 0, 'nothing duplicated');
  assert.equal(outcome.problems, []);
  assert.is(outcome.messagesStored, TOTAL);

  // Survivors stayed ready: every not-ready answer belongs to the process being restarted at that moment.
  for (const [name, list] of samples) {
    const bad = list.filter((s) => s.state !== 'ready' && !s.excused);
    log(`/readyz ${name}: ${list.length} samples, ${bad.length} not ready outside its own restart${bad.length ? ` (${[...new Set(bad.flatMap((s) => s.down))].join(', ')})` : ''}`);
    assert.is(bad.length, 0, `${name}'s /readyz stayed ready while it ran: ${JSON.stringify(bad.slice(0, 5))}`);
  }
});

test.run();
