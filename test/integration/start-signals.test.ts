// A signal during start-up drains (issue 41 finding 7; docs/decisions.md#signals-during-start-up-and-the-test-runners-guards).
// For every `start.*` seam of config/failpoints.ts, `faultline start` is run with that step held
// (FAULTLINE_FAILPOINTS=<seam>=hold), and once the process says it is holding there it gets SIGTERM. It must exit
// 0 with "drained" in its log, leave no member in any consumer group of its Kafka namespace, and leave none of
// its ports listening (its own and its children's, read from /proc before the signal). The cases run on Kafka with
// a database URL, so the consumer groups are real; the simulator's step runs only on the embedded default, so
// that seam (and the embedded database's port) is checked there. A `start.*` seam without a case fails the suite.
// Ctrl-C in a terminal signals the whole foreground process group: the embedded PostgreSQL is started outside it
// (issue 41, 8c), so it outlives the signal, serves the drain's last writes and is stopped by faultline after the
// drain; it is gone once faultline has exited, whichever way that exit came (a second Ctrl-C, SIGKILL).
// Also: a second signal during a slow drain (a 20 s SQS long poll that stop() waits for) exits at once, non-zero;
// SIGHUP does not end the process.
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SEAMS, type Seam } from '../../config/failpoints.js';
import { embeddedDatabaseUrl, runningServer } from '../../db/embedded.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { brokers } from '../../support/kafka.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { devCerts, type DevCerts } from '../helpers/dev-certs.js';
import { listenersOf, type Listener } from '../helpers/listening.js';
import { createQueue, dropQueue, env, log, newSqsClient, randomName, waitFor } from '../resilience/rig.js';

type StartSeam = Extract<Seam, `start.${string}`>;
/** Where each seam's case runs; the pipeline joins its groups before `start.bridge`, so later seams have members to leave. */
const CASES: [StartSeam, 'kafka' | 'embedded'][] = [
  ['start.database', 'kafka'], ['start.transport', 'kafka'], ['start.pipeline', 'kafka'], ['start.bridge', 'kafka'],
  ['start.api', 'kafka'], ['start.workers', 'kafka'], ['start.dnp3', 'kafka'], ['start.iec104', 'kafka'],
  ['start.api', 'embedded'], ['start.simulate', 'embedded'],
];
const AFTER_PIPELINE: StartSeam[] = ['start.bridge', 'start.api', 'start.workers', 'start.dnp3', 'start.iec104'];

const sqs = newSqsClient();
let db: TestDatabase;
let certs: DevCerts;
let queueUrl = '';
const namespaces: string[] = [];
const running: FaultlineProcess[] = [];
const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();

test.before(async () => {
  db = await createTestDatabase('start_signals');
  certs = devCerts('faultline-start-signals-');
  queueUrl = await createQueue(sqs, randomName('start-signals'));
  await admin.connect();
});

test.after(async () => {
  for (const p of running) await p.stop('SIGKILL');
  const topics = (await admin.listTopics()).filter((t) => namespaces.some((ns) => t.startsWith(`${ns}.`)));
  if (topics.length) await admin.deleteTopics({ topics }).catch(() => {});
  const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => namespaces.some((ns) => g.startsWith(`${ns}.`)));
  if (groups.length) await admin.deleteGroups(groups).catch(() => {});
  await admin.disconnect();
  await dropQueue(sqs, queueUrl).catch(() => {});
  sqs.destroy();
  certs?.remove();
  await db?.drop().catch(() => {});
});

/** Consumer groups of a namespace with their member counts. */
async function groupsOf(namespace: string): Promise<Map<string, number>> {
  const ids = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(`${namespace}.`));
  if (!ids.length) return new Map();
  const { groups } = await admin.describeGroups(ids);
  return new Map(groups.map((g) => [g.groupId, g.members.length]));
}

const refuses = (port: number) => new Promise<boolean>((resolve) => {
  const socket = connect({ host: '127.0.0.1', port });
  socket.once('connect', () => { socket.destroy(); resolve(false); });
  socket.once('error', () => resolve(true));
});

async function launch(on: 'kafka' | 'embedded', failpoints: string, extra: Record<string, string> = {}, { processGroup = false } = {}): Promise<{ proc: FaultlineProcess; namespace: string; dataDir: string }> {
  const namespace = randomName('sig').replace(/[^a-z0-9-]/g, '');
  namespaces.push(namespace);
  const dataDir = mkdtempSync(join(tmpdir(), 'faultline-start-signals-'));
  const ports = { HOST: '127.0.0.1', PORT: String(await freePort()), DNP3_PORT: String(await freePort()), IEC104_PORT: String(await freePort()) };
  const common = { ...ports, DATA_DIR: dataDir, LOG_LEVEL: 'info', FAULTLINE_FAILPOINTS: failpoints, SHUTDOWN_TIMEOUT_MS: '60000' };
  const kafka = {
    KAFKA_BROKERS: env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL!, KAFKA_NAMESPACE: namespace,
    DATABASE_URL: db.url, SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: env.SQS_ENDPOINT!,
    DNP3_TLS_KEY: certs.outstation.key, DNP3_TLS_CERT: certs.outstation.cert, DNP3_TLS_CA: certs.outstation.ca,
    METRICS_PORT: String(await freePort()),
  };
  // The embedded default: every setting left to its default but the ports and the data directory.
  const embedded = { EMBEDDED_PG_PORT: String(await freePort()), KAFKA_BROKERS: '', DATABASE_URL: '', SQS_QUEUE_URL: '' };
  const proc = startFaultline(['start'], { ...common, ...(on === 'kafka' ? kafka : embedded), ...extra }, { processGroup });
  running.push(proc);
  return { proc, namespace, dataDir };
}

const holding = (proc: FaultlineProcess, seam: string) =>
  waitFor(`the process to hold at ${seam}`, () => {
    if (proc.child.exitCode !== null) throw new Error(`exited ${proc.child.exitCode} before holding at ${seam}\n${proc.output().slice(-3000)}`);
    return proc.output().includes(`failpoint ${seam}: hold`);
  }, { timeoutMs: 180_000, intervalMs: 100 });

test('every start.* seam has a case', () => {
  const seams = Object.keys(SEAMS).filter((s) => s.startsWith('start.'));
  assert.equal(seams.filter((s) => !CASES.some(([c]) => c === s)), [], 'start seams without a case');
});

for (const [seam, on] of CASES) {
  test(`SIGTERM while ${seam} is held (${on}): exit 0, drained, no group member, no port left listening`, async () => {
    const { proc, namespace, dataDir } = await launch(on, `${seam}=hold`);
    try {
      await holding(proc, seam);
      if (on === 'kafka' && AFTER_PIPELINE.includes(seam)) {
        // The pipeline's consumers are in their groups before the signal, so the check below is not empty.
        await waitFor('the pipeline in its consumer groups', async () => [...(await groupsOf(namespace)).values()].some((n) => n > 0), { timeoutMs: 120_000, intervalMs: 250 });
      }
      const listening: Listener[] = listenersOf(proc.child.pid!);
      if (seam === 'start.simulate') {
        proc.child.kill('SIGHUP');
        await waitFor('the SIGHUP line', () => proc.output().includes('SIGHUP'), { timeoutMs: 30_000, intervalMs: 50 });
        assert.is(proc.child.exitCode, null, 'SIGHUP does not end the process');
      }
      const code = await proc.stop('SIGTERM');
      log(`${seam} (${on}): exit ${code}; listening before the signal: ${listening.map((l) => `${l.protocol}/${l.port}`).join(' ') || 'none'}`);
      assert.is(code, 0, `exit 0\n${proc.output().slice(-3000)}`);
      assert.ok(proc.output().includes('"msg":"drained"'), `"drained" in the log\n${proc.output().slice(-3000)}`);
      if (on === 'kafka') {
        const groups = await groupsOf(namespace);
        assert.equal([...groups].filter(([, members]) => members > 0), [], 'a consumer group kept a member');
        if (AFTER_PIPELINE.includes(seam)) assert.ok(groups.size > 0, 'the pipeline had joined its groups');
      }
      const stillListening = [];
      for (const l of listening.filter((l) => l.protocol === 'tcp')) if (!(await refuses(l.port))) stillListening.push(l.port);
      assert.equal(stillListening, [], 'ports still listening after the exit');
    } finally {
      await proc.stop('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

/** The PostgreSQL server of an embedded data directory, while one runs there (its postmaster.pid names a live postgres). */
const postmasterOf = (dataDir: string) => runningServer(join(dataDir, 'postgres'));
const processGone = (pid: number, what: string) => waitFor(what, () => {
  try { process.kill(pid, 0); return false; } catch { return true; }
}, { timeoutMs: 60_000, intervalMs: 100 });

/** Log lines at warn or above (pino levels 40+) from the drain on, and what names a lost database connection. */
function drainTrouble(output: string): string[] {
  const from = output.indexOf('"msg":"draining"');
  return output.slice(from).split('\n').filter((line) => /"level":(4|5|6)\d/.test(line) || /terminating connection|Connection terminated|57P01|ECONNREFUSED/.test(line));
}

test('Ctrl-C (SIGINT to the process group) on the embedded default: exit 0, drained, no failed write, PostgreSQL stopped after', async () => {
  // The simulator keeps the pipeline writing, so the drain has batches in flight to commit.
  const { proc, dataDir } = await launch('embedded', '', { SIMULATE_RATE: '40' }, { processGroup: true });
  try {
    await waitFor('faultline started', () => {
      if (proc.child.exitCode !== null) throw new Error(`exited ${proc.child.exitCode}\n${proc.output().slice(-3000)}`);
      return proc.output().includes('Ctrl-C stops it');
    }, { timeoutMs: 180_000, intervalMs: 100 });
    const server = postmasterOf(dataDir);
    assert.ok(server, 'the embedded PostgreSQL runs');
    const db = new pg.Client({ connectionString: embeddedDatabaseUrl(dataDir, server.port) });
    await db.connect();
    try {
      const stored = async () => Number((await db.query<{ n: string }>('select count(*) as n from device_records')).rows[0]!.n);
      const before = await stored();
      await waitFor('check-ins flowing through the pipeline', async () => (await stored()) > before, { timeoutMs: 120_000, intervalMs: 200 });
    } finally {
      await db.end();
    }
    process.kill(-proc.child.pid!, 'SIGINT'); // what the terminal does on Ctrl-C: every process of the group
    const code = await proc.exited;
    const output = proc.output();
    log(`Ctrl-C on the embedded default: exit ${code}`);
    assert.is(code, 0, `exit 0\n${output.slice(-3000)}`);
    assert.ok(output.includes('"msg":"drained"'), `"drained" in the log\n${output.slice(-3000)}`);
    assert.equal(drainTrouble(output), [], `warnings, errors or a lost database connection during the drain\n${output.slice(output.indexOf('"msg":"draining"') - 200).slice(0, 4000)}`);
    assert.is(postmasterOf(dataDir), null, 'the embedded PostgreSQL stopped with faultline');
  } finally {
    await proc.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a second Ctrl-C during the drain still leaves no embedded PostgreSQL behind', async () => {
  const { proc, dataDir } = await launch('embedded', 'start.simulate=hold', {}, { processGroup: true });
  try {
    await holding(proc, 'start.simulate');
    const server = postmasterOf(dataDir);
    assert.ok(server, 'the embedded PostgreSQL runs');
    process.kill(-proc.child.pid!, 'SIGINT');
    process.kill(-proc.child.pid!, 'SIGINT');
    await proc.exited;
    await processGone(server.pid, 'the embedded PostgreSQL gone');
  } finally {
    await proc.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('faultline SIGKILLed on the embedded default: its PostgreSQL does not linger', async () => {
  const { proc, dataDir } = await launch('embedded', 'start.simulate=hold', {}, { processGroup: true });
  try {
    await holding(proc, 'start.simulate');
    const server = postmasterOf(dataDir);
    assert.ok(server, 'the embedded PostgreSQL runs');
    proc.child.kill('SIGKILL'); // faultline alone, as the OOM killer would
    await proc.exited;
    await processGone(server.pid, 'the embedded PostgreSQL gone');
  } finally {
    await proc.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a second signal during a slow drain exits at once, non-zero', async () => {
  // SQS_WAIT_SECONDS=20: the bridge's pollers have just begun a 20 s long poll on an empty queue when the API's
  // step is held, and the drain waits for them (stages/bridge/sqs-source.ts), so the drain is under way when
  // the second signal comes.
  const { proc, dataDir } = await launch('kafka', 'start.api=hold', { SQS_WAIT_SECONDS: '20' });
  try {
    await holding(proc, 'start.api');
    proc.child.kill('SIGTERM');
    await waitFor('the drain to begin', () => proc.output().includes('"msg":"draining"'), { timeoutMs: 30_000, intervalMs: 10 });
    const code = await proc.stop('SIGTERM');
    assert.is.not(code, 0, `non-zero exit\n${proc.output().slice(-3000)}`);
    assert.ok(proc.output().includes('second signal'), `the second signal is logged\n${proc.output().slice(-3000)}`);
    assert.not.ok(proc.output().includes('"msg":"drained"'), 'it did not wait for the drain');
  } finally {
    await proc.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
