// What the resilience suites share: a private SQS queue, a paced sender of simulator messages (plus known-bad
// ones), the pipeline as a real child process (`faultline start --only ...,api`), a /readyz poller that keeps a
// timeline, infra fault helpers that always leave the component up, consumer lag, and the final comparison of
// the tables with what was sent.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { Kafka, logLevel } from 'kafkajs';
import { infraEnv, infraStateDir } from '../../infra/endpoints.js';
import { TOPICS } from '../../schemas/avro/topics.js';
import { createSqsClient } from '../../stages/bridge/index.js';
import { STAGE_NAMES } from '../../stages/pipeline.js';
import { kafkaNames } from '../../stages/runtime/transport/names.js';
import { CHAIN_INPUT } from '../../stages/shape.js';
import { createFleet, type FleetMessage } from '../../simulator/index.js';
import type { TestDatabase } from '../../support/database.js';
import { brokers, testKafkaTransport } from '../../support/kafka.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { randomName, waitFor } from '../../support/wait-for.js';
import type { RawMessage } from '../../schemas/avro/values.js';
import type { CheckInKey } from '../helpers/device-order.js';

const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
export const env = { ...infraEnv(), ...process.env } as Record<string, string>;
export const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 23)}] ${msg}`);

// ---------------------------------------------------------------------------------------------- messages

export interface Outgoing { body: string; good: FleetMessage | null; bad: BadMessage | null }
export interface BadMessage { marker: string; body: string; code: 'MALFORMED' | 'INVALID' }

/**
 * `total` queue messages: simulator check-ins (deterministic fleet, one event each) with `bad` known-bad
 * messages spread evenly among them. Each bad body is unique (a marker), so the DLQ can be checked body by body.
 */
export function buildMessages(total: number, bad: number, seed: number): Outgoing[] {
  const fleet = createFleet({ devices: 400, seed, eventsPerCheckIn: 1, startTime: Date.UTC(2026, 10, 20), intervalMs: 60_000, firstEventId: 1000 });
  const out: Outgoing[] = [];
  const every = Math.floor(total / bad);
  let b = 0;
  for (let i = 0; i < total; i++) {
    if (b < bad && i % every === Math.floor(every / 2)) { out.push(badMessage(b++, seed)); continue; }
    const m = fleet.next();
    out.push({ body: JSON.stringify(m.message), good: m, bad: null });
  }
  return out;
}

function badMessage(n: number, seed: number): Outgoing {
  const marker = `bad-${seed}-${n}`;
  const imei = `99${String(seed).padStart(3, '0')}${String(n).padStart(10, '0')}`;
  const base = {
    device_data: { IMEINumber: imei, date: '2026-11-20T00:00:00Z', model: marker, Ongoing_fault: 0 },
    events: [], currents: { PeakCurrent: 1, PeakCurrentTimestamp: '2026-11-20T00:00:00Z', HourlyAverages: Array(24).fill(1) }, dm1_device: false,
  };
  let body: string;
  let code: BadMessage['code'] = 'INVALID';
  switch (n % 4) {
    case 0: body = JSON.stringify(base).slice(0, 60) + marker; code = 'MALFORMED'; break; // truncated JSON
    case 1: body = JSON.stringify({ ...base, currents: { ...base.currents, HourlyAverages: Array(23).fill(1) } }); break; // 23 averages
    case 2: body = JSON.stringify({ ...base, device_data: { ...base.device_data, date: 'yesterday' } }); break;
    default: body = JSON.stringify({ ...base, device_data: { ...base.device_data, date: '1900-01-01T00:00:00Z' } }); break;
  }
  return { body, good: null, bad: { marker, body, code } };
}

// ------------------------------------------------------------------------------------------------- queue

export async function createQueue(sqs: SQSClient, name: string): Promise<string> {
  // Short visibility: a batch the bridge could not publish comes back after 5 s, not the default 30 s.
  const created = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '5' } }));
  return created.QueueUrl!;
}

export async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const a = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
  return Number(a.Attributes!.ApproximateNumberOfMessages) + Number(a.Attributes!.ApproximateNumberOfMessagesNotVisible);
}

export const newSqsClient = (): SQSClient => createSqsClient({ queueUrl: env.SQS_QUEUE_URL!, endpoint: env.SQS_ENDPOINT! });

/**
 * Sends the messages in order, 10 per SendMessageBatch, at about `rate` messages a second. `gate(n)` lets
 * the test hold the sender before message n (so a fault happens while messages still flow); `pause()`
 * holds it at once (while the SQS server restarts). A failed send is retried with the same batch; a batch
 * the server may have accepted before failing is counted in `resent` (it could come twice).
 */
export function startSender(sqs: SQSClient, queueUrl: () => string, messages: Outgoing[], rate: number) {
  let sent = 0;
  let resent = 0;
  let paused = false;
  let gateAt = Infinity;
  let stopped = false;
  const done = (async () => {
    const t0 = Date.now();
    while (sent < messages.length && !stopped) {
      if (paused || sent >= gateAt) { await sleep(50); continue; }
      const end = Math.min(sent + 10, messages.length, gateAt);
      const entries = messages.slice(sent, end).map((m, i) => ({ Id: String(i), MessageBody: m.body }));
      try {
        const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl(), Entries: entries }));
        if (out.Failed?.length) throw new Error(`${out.Failed.length} entries refused: ${out.Failed[0]!.Message ?? ''}`);
      } catch (err) {
        resent++;
        log(`send failed (${(err as Error).message}); retrying`);
        await sleep(500);
        continue;
      }
      sent = end;
      const ahead = t0 + (sent / rate) * 1000 - Date.now();
      if (ahead > 0) await sleep(ahead);
    }
  })();
  return {
    done,
    sent: () => sent,
    resent: () => resent,
    pause: () => { paused = true; },
    resume: () => { paused = false; },
    gate: (n: number) => { gateAt = n; },
    stop: () => { stopped = true; },
  };
}

// --------------------------------------------------------------------------------------------- pipeline

export interface PipelineRig {
  proc: FaultlineProcess;
  /** The environment of the next start (a suite may change it between a crash and the restart). */
  env: Record<string, string>;
  port: number;
  dataDir: string;
  start(): Promise<void>;
  kill(): Promise<void>;
  stop(): Promise<void>;
  /** Throws (with the process output) when the process died without being killed by the test. */
  assertAlive(): void;
  output(): string;
}

/**
 * The whole pipeline, bridge and API in one `faultline start` child process (the real CLI); `components`
 * adds others (e.g. `delivery`); `only` names every component instead (one process of a split deployment).
 */
export async function pipelineProcess(db: TestDatabase, queueUrl: string, extraEnv: Record<string, string> = {}, { components: more = [], only }: { components?: string[]; only?: string[] } = {}): Promise<PipelineRig> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'faultline-resilience-'));
  let logs = '';
  const childEnv = {
    KAFKA_BROKERS: env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL!, DATABASE_URL: db.url,
    SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: env.SQS_ENDPOINT!, SQS_POLLERS: '3', KAFKA_PARTITIONS: '6',
    KAFKA_SESSION_TIMEOUT_MS: '10000', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir,
    JWT_SECRET: 'resilience-suite-jwt-secret-0123456789abcdef', ...extraEnv,
  };
  const components = (only ?? ['bridge', ...STAGE_NAMES, 'api', ...more]).join(',');
  const rig: PipelineRig = {
    proc: null as unknown as FaultlineProcess,
    env: childEnv,
    port, dataDir,
    async start() {
      if (rig.proc) logs += rig.proc.output();
      rig.proc = startFaultline(['start', '--only', components], rig.env);
      await waitFor('the pipeline to answer /healthz', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, { timeoutMs: 60_000, intervalMs: 200 })
        .catch((err: Error) => { throw new Error(`${err.message}\n${rig.output().slice(-3000)}`); });
    },
    assertAlive() {
      const { exitCode, signalCode } = rig.proc.child;
      if (exitCode !== null || signalCode !== null) throw new Error(`the pipeline process died (exit ${exitCode ?? signalCode})\n${rig.output().slice(-4000)}`);
    },
    async kill() {
      rig.proc.child.kill('SIGKILL');
      await rig.proc.exited;
    },
    async stop() {
      if (!rig.proc) return;
      const timer = setTimeout(() => rig.proc.child.kill('SIGKILL'), 15_000);
      await rig.proc.stop('SIGTERM');
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
    },
    output: () => logs + (rig.proc?.output() ?? ''),
  };
  await rig.start();
  return rig;
}

/** waitFor, but gives up at once (with the process output) when the pipeline process died on its own. */
export async function waitWhileAlive<T>(rig: PipelineRig, what: string, check: () => Promise<T> | T, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<void> {
  let died: Error | null = null;
  await waitFor(what, async () => {
    try { rig.assertAlive(); } catch (err) { died = err as Error; return true; }
    return check();
  }, options).catch((err: Error) => { throw new Error(`${err.message}\n${rig.output().slice(-3000)}`); });
  if (died) throw died;
}

/** Resident set size of a process, from /proc (Linux). */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** One Prometheus sample from /metrics, e.g. `faultline_stage_in_flight_records{stage="persist"}`. */
export async function metric(port: number, name: string): Promise<number | null> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(3000) })).text();
  for (const line of text.split('\n')) if (line.startsWith(name + ' ')) return Number(line.slice(name.length + 1));
  return null;
}

// ---------------------------------------------------------------------------------------------- readiness

export interface Sample { at: number; state: 'ready' | 'unavailable' | 'unreachable'; down: string[] }

/** Polls /readyz every 250 ms for the whole run and keeps every answer. */
export function readinessProbe(port: () => number) {
  const samples: Sample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      try {
        const res = await fetch(`http://127.0.0.1:${port()}/readyz`, { signal: AbortSignal.timeout(4000) });
        const body = (await res.json()) as { status: string; checks: Record<string, string> };
        samples.push({ at, state: res.status === 200 ? 'ready' : 'unavailable', down: Object.entries(body.checks).filter(([, v]) => v !== 'up').map(([k]) => k) });
      } catch {
        samples.push({ at, state: 'unreachable', down: ['process'] });
      }
      await sleep(250);
    }
  })();
  return {
    samples,
    /** The samples taken in [from, to]. */
    between: (from: number, to: number) => samples.filter((s) => s.at >= from && s.at <= to),
    last: () => samples[samples.length - 1],
    async stop() { running = false; await loop; },
  };
}

// ----------------------------------------------------------------------------------------------- infra

export type Component = 'kafka' | 'postgres' | 'registry' | 'sqs';

export async function infra(component: Component, action: 'up' | 'down' | 'restart' | 'status'): Promise<void> {
  await run('bash', [`infra/${component}.sh`, action], { cwd: root, env: process.env, timeout: 180_000 });
}

export function infraPid(component: Component): number {
  return Number(readFileSync(join(infraStateDir(), 'run', `${component}.pid`), 'utf8').trim());
}

// ------------------------------------------------------------------------------------------------- lag

const STAGE_INPUT: Record<string, string> = { ...CHAIN_INPUT, rejected: TOPICS.dlq };

/**
 * Per consumer group `faultline.<stage>`, records on its input topic it has not committed yet. The chained
 * pipeline has groups only for enrich (fi.raw.v1) and rejected; topics only a split shape uses do not exist.
 * `namespace`: the KAFKA_NAMESPACE the processes run with (their topics and groups carry it).
 */
export async function consumerLag(namespace = ''): Promise<Record<string, number>> {
  const names = kafkaNames(namespace);
  const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const out: Record<string, number> = {};
    const existing = new Set(await admin.listTopics());
    for (const [stage, topic] of Object.entries(STAGE_INPUT).map(([st, t]) => [st, names.topic(t)] as const).filter(([, t]) => existing.has(t))) {
      const [committed] = await admin.fetchOffsets({ groupId: names.group(`faultline.${stage}`), topics: [topic] });
      const ends = await admin.fetchTopicOffsets(topic);
      out[stage] = ends.reduce((n, { partition, high }) => {
        const c = Number(committed?.partitions.find((p) => p.partition === partition)?.offset ?? '-1');
        return n + Number(high) - (c < 0 ? 0 : c);
      }, 0);
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

// ------------------------------------------------------------------------------------------------ verify

/**
 * Every check-in on the deployment's fi.raw.v1 (KAFKA_NAMESPACE `namespace`), per partition in offset order: the
 * order the pipeline promises to keep per device (test/helpers/device-order.ts). Read by a group of its own
 * from the beginning to the end the topic has now; a body that is not a check-in (a bad message) is left out.
 */
export async function rawTopicCheckIns(namespace: string): Promise<CheckInKey[]> {
  const transport = await testKafkaTransport(6, namespace);
  const group = randomName('raw-order-reader');
  const total = (await transport.topicRange(TOPICS.raw, 0)).reduce((n, p) => n + Number(p.end) - Number(p.start), 0);
  const read: { partition: number; offset: bigint; key: CheckInKey | null }[] = [];
  const sub = await transport.subscribe<RawMessage>({
    groupId: group, topic: TOPICS.raw, fromBeginning: true,
    async eachBatch({ partition, messages }) {
      for (const m of messages) read.push({ partition, offset: BigInt(m.offset), key: checkInKey(m.value) });
    },
  });
  try {
    await waitFor(`the ${total} records of ${TOPICS.raw} read`, () => read.length >= total, { timeoutMs: 120_000, intervalMs: 200 });
  } finally {
    await sub.stop();
    await transport.deleteGroup(group).catch(() => {});
    await transport.close();
  }
  read.sort((x, y) => x.partition - y.partition || (x.offset < y.offset ? -1 : x.offset > y.offset ? 1 : 0));
  return read.flatMap((r) => (r.key ? [r.key] : []));
}

function checkInKey(raw: RawMessage): CheckInKey | null {
  try {
    const date = Date.parse(String((JSON.parse(raw.body) as { device_data?: { date?: unknown } }).device_data?.date));
    return Number.isNaN(date) ? null : { imei: raw.imei, date };
  } catch {
    return null;
  }
}

export interface Outcome {
  messagesSent: number;
  /** Messages accounted for: a good one with its record, all its events and its currents row; a bad one dead-lettered once. */
  messagesStored: number;
  duplicated: number;
  lost: number;
  problems: string[];
}

/** Compares the tables with what was sent. Reads rows, not counts, so a wrong row cannot hide behind a right total. */
/** `accountedFor`: DLQ rows the caller expects besides the bad messages (e.g. a poison record's dead letter). */
export async function compareWithSent(db: Pick<TestDatabase, 'pool'>, sent: Outgoing[], accountedFor: (row: { code: string; body: string }) => boolean = () => false): Promise<Outcome> {
  const problems: string[] = [];
  const good = sent.filter((m) => m.good).map((m) => m.good!);
  const bad = sent.filter((m) => m.bad).map((m) => m.bad!);
  const iso = (d: Date | string) => new Date(d).toISOString();

  const records = new Map<string, number>();
  for (const r of (await db.pool.query(`select "IMEINumber" as imei, "date" from device_records`)).rows as { imei: string; date: Date }[]) {
    const k = `${r.imei}@${iso(r.date)}`;
    records.set(k, (records.get(k) ?? 0) + 1);
  }
  const events = new Map<string, number>();
  for (const table of ['event_records', 'dm1_event_records']) {
    for (const r of (await db.pool.query(`select "IMEINumber" as imei, "EventID" as id from ${table}`)).rows as { imei: string; id: number }[]) {
      const k = `${r.imei}#${r.id}`;
      events.set(k, (events.get(k) ?? 0) + 1);
    }
  }
  const currents = new Map<string, number>();
  for (const r of (await db.pool.query(`select "IMEINumber" as imei, "PacketTimestamp" as at from device_currents`)).rows as { imei: string; at: Date }[]) {
    const k = `${r.imei}@${iso(r.at)}`;
    currents.set(k, (currents.get(k) ?? 0) + 1);
  }
  const rejected = (await db.pool.query(`select code, body from rejected_messages`)).rows as { code: string; body: string }[];

  let stored = 0;
  let lost = 0;
  let duplicated = 0;
  const expectRecords = new Set<string>();
  const expectEvents = new Set<string>();
  const expectCurrents = new Set<string>();
  for (const g of good) {
    const d = g.message.device_data;
    const key = `${g.imei}@${iso(String(d.date))}`;
    expectRecords.add(key);
    const eventKeys = g.message.events.map((e) => `${g.imei}#${e.EventID}`);
    eventKeys.forEach((k) => expectEvents.add(k));
    const currentKey = key; // PacketTimestamp is device_data.date
    expectCurrents.add(currentKey);
    const whole = records.has(key) && eventKeys.every((k) => events.has(k));
    if (whole) stored++;
    else { lost++; if (problems.length < 20) problems.push(`lost: ${key} (record ${records.has(key)}, events ${eventKeys.filter((k) => events.has(k)).length}/${eventKeys.length})`); }
  }
  // Rows nobody sent, or a key twice (the unique keys should make that impossible; checked, not assumed).
  for (const [what, rows, expected] of [['record', records, expectRecords], ['event', events, expectEvents]] as const) {
    for (const [k, n] of rows) {
      if (!expected.has(k)) { duplicated += n; problems.push(`unexpected ${what} row ${k}`); }
      else if (n > 1) { duplicated += n - 1; problems.push(`${what} ${k} stored ${n} times`); }
    }
  }
  // Currents: present for every stored record (checked as a count of matches; their key is the packet time).
  const currentsMissing = [...expectCurrents].filter((k) => !currents.has(k)).length;
  const currentsExtra = [...currents.keys()].filter((k) => !expectCurrents.has(k)).length;
  if (currentsMissing) problems.push(`${currentsMissing} currents rows missing`);
  if (currentsExtra) { duplicated += currentsExtra; problems.push(`${currentsExtra} unexpected currents rows`); }
  if (currentsMissing && lost === 0) lost += currentsMissing;

  // The DLQ (rejected_messages) holds each bad message exactly once, with the right code, and nothing else.
  const badByBody = new Map(bad.map((b) => [b.body, b]));
  const seen = new Map<string, number>();
  for (const r of rejected) {
    if (accountedFor(r)) continue;
    const b = badByBody.get(r.body);
    if (!b) { problems.push(`DLQ holds a message that is not one of the bad ones: ${r.code} ${r.body.slice(0, 120)}`); duplicated++; continue; }
    if (r.code !== b.code) problems.push(`${b.marker}: dead-lettered as ${r.code}, expected ${b.code}`);
    seen.set(r.body, (seen.get(r.body) ?? 0) + 1);
  }
  for (const b of bad) {
    const n = seen.get(b.body) ?? 0;
    if (n === 0) { lost++; problems.push(`${b.marker} is not in the DLQ`); }
    else { stored++; if (n > 1) { duplicated += n - 1; problems.push(`${b.marker} dead-lettered ${n} times`); } }
  }
  return { messagesSent: sent.length, messagesStored: stored, duplicated, lost, problems };
}

export async function dropQueue(sqs: SQSClient, queueUrl: string): Promise<void> {
  await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => {});
}

export { randomName, waitFor, sleep };
