// Scenario **alarms**: alarm latency from SQS to webhook receipt (issue 20). One `faultline start --only
// bridge,pipeline,alarms` child on the infra/ broker, schema registry, SQS server and Postgres; a local HTTP
// receiver on loopback stands for the customer's endpoint, verifies every request's signature
// (alarms/channels/webhook.ts verifyWebhook) and records its arrival time. Check-ins are offered at a fixed rate
// (default 1,000 per second) from 10,000 devices (each checks in every 10 s); 1 % of them carry a permanent
// fault (Ongoing_fault 4), the device's next check-in clears it. One rule sends permanent faults to the
// webhook. Latency per raise = webhook arrival - the time SQS accepted the fault check-in's batch.
//
//   node --import tsx bench/alarms.bench.ts [--messages 30000] [--devices 10000] [--rate 1000] [--fault-share 0.01]
//
// Device times are the intended send times (so the communication-lost clock sees a live fleet); check-ins
// carry no events (the alarm comes from the fault code). Storm digests and caps are set out of reach: this
// measures single alarms. It reports each process's CPU seconds per second over the run; BENCH_CPU_PROF=<dir>
// makes the faultline child write a CPU profile there.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { verifyWebhook } from '../alarms/channels/webhook.js';
import { infraEnv } from '../infra/endpoints.js';
import { resetPipelineTopics } from '../support/kafka.js';
import { importAlarms, TEST_KEYS, WEBHOOK_SECRET } from '../support/alarm-setup.js';
import { benchDatabase, benchFleet, benchQueue, countRows, generateMessages, preload, progress } from './common.js';
import { percentile } from '../support/stats.js';
import { cpuDelta, cpuSnapshot } from './process-cpu.js';

const ROOT = new URL('..', import.meta.url).pathname;
/** BENCH_CPU_PROF=<dir>: the faultline child writes a V8 CPU profile (--cpu-prof) there on exit. */
const CPU_PROF = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
const WARM_UP = 24;
const TIMEOUT_MS = 300_000;

interface Received { type: string; imei: string; alarmId: number | null; at: number }

async function receiver(): Promise<{ url: string; received: Received[]; refused: number; close(): Promise<void> }> {
  const received: Received[] = [];
  let refused = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
      if (!verifyWebhook(WEBHOOK_SECRET, headers, body, at)) { refused++; res.writeHead(401).end(); return; }
      const p = JSON.parse(body) as { type: string; IMEINumber?: string; alarmId?: number | null };
      received.push({ type: p.type, imei: p.IMEINumber ?? '', alarmId: p.alarmId ?? null, at });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received,
    get refused() { return refused; },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** p50 and p90 of one segment of the raise path, in ms. */
interface Segment { p50: number | null; p90: number | null }

/**
 * Where each raise's time went, from the stamps the product writes: SQS acceptance to the notify stage's alarm
 * transaction (alarms.raised_at: the bridge, Kafka and the chained stages), from there to the start of the router
 * round that routed it (alarm_outbox.created_at: the transaction's commit, NOTIFY, the router's wake-up and any
 * round in progress), and from there to the webhook's arrival (the round itself, the outbox claim, the HTTP request).
 */
async function raiseSegments(pool: pg.Pool, received: readonly Received[], lastSend: (imei: string, atMs: number) => number | null): Promise<Record<string, Segment>> {
  const { rows } = await pool.query<{ id: number; imei: string; raised: Date; routed: Date }>(
    `select a.id, a."IMEINumber" as imei, a.raised_at as raised, o.created_at as routed
       from alarms a join alarm_outbox o on o.alarm_id = a.id and o.kind = 'raised'`);
  const arrival = new Map(received.filter((r) => r.type === 'raised' && r.alarmId !== null).map((r) => [String(r.alarmId), r.at]));
  const pipeline: number[] = [];
  const router: number[] = [];
  const sender: number[] = [];
  for (const r of rows) {
    const sent = lastSend(r.imei, r.raised.getTime());
    const at = arrival.get(String(r.id));
    if (sent === null || at === undefined) continue;
    pipeline.push(r.raised.getTime() - sent);
    router.push(r.routed.getTime() - r.raised.getTime());
    sender.push(at - r.routed.getTime());
  }
  const segment = (xs: number[]): Segment => { xs.sort((a, b) => a - b); return { p50: percentile(xs, 50), p90: percentile(xs, 90) }; };
  return { 'SQS to the raise (bridge, Kafka, stages)': segment(pipeline), 'raise to its routing round (commit, NOTIFY, wake-up)': segment(router), 'routing round to webhook (routing, claim, HTTP)': segment(sender) };
}

export async function runAlarms({ messages, devices, rate, faultShare }: { messages: number; devices: number; rate: number; faultShare: number }) {
  const fleet = benchFleet(devices);
  const data = generateMessages(fleet, WARM_UP + messages);
  // Device time = when the check-in is due to be sent; 1 % (seeded) carry a permanent fault.
  const t0 = Date.now() + 60_000;
  let seed = 7;
  const random = () => { seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31; return seed / 2 ** 31; };
  const faultAt = new Map<number, string>();
  const faulted = new Set<string>();
  let expected = 0;
  data.forEach((d, i) => {
    const m = d.message as unknown as { device_data: Record<string, unknown>; events: unknown[] };
    m.device_data.date = new Date(t0 + (i / rate) * 1000).toISOString();
    const fault = i >= WARM_UP && random() < faultShare;
    m.device_data.Ongoing_fault = fault ? 4 : 0;
    m.events = [];
    if (fault) faultAt.set(i - WARM_UP, d.imei);
    // A fault right after a fault of the same device is no new alarm (one per device and condition).
    if (fault && !faulted.has(d.imei)) expected++;
    if (fault) faulted.add(d.imei); else faulted.delete(d.imei);
    d.body = JSON.stringify(m);
  });
  await resetPipelineTopics(['dnp3.bench']);
  const db = await benchDatabase('bench_alarms', fleet, 4);
  const hook = await receiver();
  await importAlarms(db.pool, {
    recipients: [{ id: 'bench-hook', OrganizationID: 'bench', channel: 'webhook', address: hook.url, secret: WEBHOOK_SECRET }],
    // The rule takes every kind a reported permanent fault can become: the ActualOngoingFault rule makes some of
    // them probable temporary (code 11), and each still raises one alarm.
    rules: [{ id: 'bench-faults', OrganizationID: 'bench', class: 'operations', what: ['permanent', 'temporary'], who: ['bench-hook'] }],
  });
  const queue = await benchQueue('bench-alarms');
  const env = infraEnv();
  const child = spawn(process.execPath, [...CPU_PROF, 'bin/faultline.js', 'start', '--only', 'bridge,pipeline,alarms'], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env, KAFKA_BROKERS: env.KAFKA_BROKERS, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL, DATABASE_URL: db.url, KAFKA_PARTITIONS: '6',
      SQS_QUEUE_URL: queue.url, SQS_ENDPOINT: env.SQS_ENDPOINT, LOG_LEVEL: 'error', FAULTLINE_SECRET_KEYS: TEST_KEYS, ALARM_WEBHOOK_ALLOW: 'loopback',
      ALARM_STORM_THRESHOLD: '1000000000', ALARM_RECIPIENT_CAP_PER_DAY: '1000000000',
    },
  });
  const deadline = Date.now() + TIMEOUT_MS;
  const until = async (label: string, done: () => Promise<boolean> | boolean, status: () => Promise<string> | string) => {
    let lastPrint = 0;
    while (!(await done())) {
      if (child.exitCode !== null) throw new Error(`faultline start exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`alarms: ${label}: ${await status()} after ${TIMEOUT_MS / 1000} s`);
      if (Date.now() - lastPrint > 1000) { progress(`  alarms: ${label}: ${await status()}`); lastPrint = Date.now(); }
      await sleep(50);
    }
  };
  try {
    progress(`alarms: warm-up (${WARM_UP} check-ins, the stages join their groups)`);
    await preload(queue, data.slice(0, WARM_UP).map((d) => d.body));
    await until('warm-up', async () => (await countRows(db.pool).catch(() => 0)) >= WARM_UP, async () => `${await countRows(db.pool).catch(() => 0)}/${WARM_UP} stored`);
    const wait = t0 + (WARM_UP / rate) * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
    progress(`alarms: offering ${messages} check-ins at ${rate} per second, ${faultAt.size} with a permanent fault`);
    const sentAt = new Map<number, number>();
    const cpuBefore = cpuSnapshot([child.pid!]);
    const started = Date.now();
    const measured = data.slice(WARM_UP);
    const offered = await preload(queue, measured.map((d) => d.body), { ratePerSecond: rate, onSent: (i, at) => { if (faultAt.has(i)) sentAt.set(i, at); } });
    const raised = () => hook.received.filter((r) => r.type === 'raised').length;
    // Every fault raises one alarm (each device's next check-in, 10 s later, clears it first: its raise is sent).
    await until('webhooks', async () => raised() >= expected && (await countRows(db.pool)) >= WARM_UP + messages,
      async () => `${raised()}/${expected} raised received, ${await countRows(db.pool)}/${WARM_UP + messages} stored`);
    // Who used the two cores while the check-ins were offered and the alarms sent: CPU seconds per second.
    const seconds = (Date.now() - started) / 1000;
    const cpuPerSecond = Object.fromEntries(Object.entries(cpuDelta(cpuBefore, cpuSnapshot([child.pid!]))).map(([k, v]) => [k, Math.round((v / seconds) * 100) / 100]));
    // Match each raise to the latest fault send of its device before the arrival.
    const sendsByDevice = new Map<string, number[]>();
    for (const [i, imei] of faultAt) (sendsByDevice.get(imei) ?? sendsByDevice.set(imei, []).get(imei)!).push(sentAt.get(i)!);
    /** The device's latest fault send at or before `atMs`, or null. */
    const lastSend = (imei: string, atMs: number): number | null => {
      const sends = (sendsByDevice.get(imei) ?? []).filter((s) => s <= atMs);
      return sends.length ? Math.max(...sends) : null;
    };
    const latencies = hook.received.filter((r) => r.type === 'raised').flatMap((r) => {
      const sent = lastSend(r.imei, r.at);
      return sent === null ? [] : [r.at - sent];
    }).sort((a, b) => a - b);
    const stages = await raiseSegments(db.pool, hook.received, lastSend);
    const result = {
      scenario: `alarms @${rate}/s`, messages, devices, faultShare, faults: faultAt.size, alarmsExpected: expected, offeredPerSecond: Math.round(offered),
      raisedReceived: raised(), clearedReceived: hook.received.filter((r) => r.type === 'cleared').length, signaturesRefused: hook.refused,
      latencyMs: { p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99), max: latencies.at(-1) ?? null },
      segmentsMs: stages,
      cpuSecondsPerSecond: cpuPerSecond,
      runSeconds: Math.round((Date.now() - started) / 100) / 10,
      note: 'one faultline start (bridge, chained pipeline, alarms) on Kafka with 6 partitions; latency = webhook arrival at a loopback receiver (signature verified) - SQS acceptance of the fault check-in',
    };
    progress(`alarms: raise latency p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms (${latencies.length} raises)`);
    for (const [segment, p] of Object.entries(stages)) progress(`  ${segment}: p50 ${p.p50} ms, p90 ${p.p90} ms`);
    progress(`  CPU seconds per second: ${JSON.stringify(cpuPerSecond)}`);
    return result;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    await hook.close();
    await queue.delete();
    await db.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { messages: { type: 'string' }, devices: { type: 'string' }, rate: { type: 'string' }, 'fault-share': { type: 'string' } }, strict: false });
  runAlarms({ messages: Number(values.messages ?? 30_000), devices: Number(values.devices ?? 10_000), rate: Number(values.rate ?? 1000), faultShare: Number(values['fault-share'] ?? 0.01) })
    .then((r) => { process.stdout.write(`${JSON.stringify(r, null, 2)}\n`); })
    .catch((err: unknown) => { console.error(err); process.exit(1); });
}
