// Check-ins per second through every stage (enrich, dedup, fault-compute, persist, notify) with the real
// broker, schema registry and Postgres of infra/. The stages start and join their groups first; then the
// clock runs from the first record produced into fi.raw.v1 until every check-in is stored. Messages carry 3 events and 24 hourly averages.
//
//   npm run bench:pipeline -- [--messages 20000] [--devices 10000] [--runs 3]
//
// Writes bench/results/pipeline.json and bench/results/pipeline.md. Each figure is the median of the runs,
// with min and max. The CPU table names the bottleneck: the process that used the most CPU per second.
import { execSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { infraEnv } from '../infra/endpoints.js';
import { loadModelMap, loadSettings } from '../config/settings.js';
import { importReferenceData } from '../reference-data/index.js';
import { createRegistry } from '../schemas/registry.js';
import { TOPICS } from '../schemas/avro/topics.js';
import type { RawMessage } from '../schemas/avro/values.js';
import { Keyring } from '../secrets/keyring.js';
import { createFleet } from '../simulator/index.js';
import { startPipeline } from '../stages/pipeline.js';
import { registryCodec } from '../stages/runtime/codec.js';
import { kafkaTransport } from '../stages/runtime/transport/kafka.js';
import { resetPipelineTopics } from '../test/helpers/kafka.js';
import { machineInfo } from './machine.js';
import { registry } from '../config/metrics.js';
import { cpuDelta, cpuSnapshot } from './process-cpu.js';
import { stats } from './stats.js';
import { createTestDatabase } from '../test/helpers/database.js';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '20000' }, devices: { type: 'string', default: '10000' }, runs: { type: 'string', default: '3' }, partitions: { type: 'string', default: '6' }, processes: { type: 'string', default: '0' } } });
const MESSAGES = Number(values.messages);
const DEVICES = Number(values.devices);
const RUNS = Number(values.runs);
const PARTITIONS = Number(values.partitions);
/** 0: every stage inside this process. N: N `faultline start` processes, each running every stage (the group splits the partitions). */
const PROCESSES = Number(values.processes);
const env = { ...infraEnv(), ...process.env } as Record<string, string>;

interface Run { seconds: number; perSecond: number; preloadPerSecond: number; cpu: Record<string, number>; stages: Record<string, { batches: number; meanBatch: number; busySeconds: number }> }


async function oneRun(run: number): Promise<Run> {
  await resetPipelineTopics(['dnp3.bench']);
  const db = await createTestDatabase('bench', { poolMax: 16 });
  const fleet = createFleet({ devices: DEVICES, seed: run, eventsPerCheckIn: 3, intervalMs: 60_000, startTime: Date.UTC(2026, 10, 20) });
  await importReferenceData(db.pool, {
    organizations: [{ OrganizationID: 'bench', name: 'Bench Utility' }], powerLines: [], groups: [], users: [], integrations: [],
    devices: fleet.imeis.map((imei, i) => ({ IMEINumber: imei, OrganizationID: 'bench', Real_Name: `Bench ${i}`, Lat: 41, Long: -87, dnp3QueueAddress: 'dnp3.bench' })),
  }, { keyring: new Keyring([{ id: 'bench', key: Buffer.alloc(32, 1) }]) });

  const transport = kafkaTransport({ brokers: env.KAFKA_BROKERS!.split(','), codec: await registryCodec(createRegistry(env.SCHEMA_REGISTRY_URL!)), partitions: PARTITIONS, sessionTimeoutMs: 10_000 });
  await transport.ensureTopics(Object.values(TOPICS));
  const producer = transport.producer();
  const raw = (n: number) => {
    const { imei, message } = fleet.next();
    const value: RawMessage = { messageId: `bench-${run}-${n}`, source: 'sqs', receivedAt: Date.now(), imei, body: JSON.stringify(message) };
    return { topic: TOPICS.raw, key: imei, value };
  };
  const storedCount = async () => Number((await db.pool.query('select count(*) from device_records')).rows[0].count);

  // Warm-up: the stages join their consumer groups (seconds on Kafka) before the clock starts.
  const settings = loadSettings({});
  const children = Array.from({ length: PROCESSES }, () => spawn(process.execPath, ['bin/faultline.js', 'start', '--only', 'enrich,dedup,fault-compute,persist,notify,rejected'], {
    cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, KAFKA_BROKERS: env.KAFKA_BROKERS, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL, DATABASE_URL: db.url, KAFKA_PARTITIONS: String(PARTITIONS), KAFKA_SESSION_TIMEOUT_MS: '10000', LOG_LEVEL: 'error' },
  }));
  const pipeline = PROCESSES === 0 ? await startPipeline({ transport, pool: db.pool, modelMap: loadModelMap(settings.modelMapFile), lowCurrentA: settings.lowCurrentA }) : null;
  // Warm-up until one record per partition went through: every process has joined every group.
  await producer.send(Array.from({ length: PARTITIONS * 4 }, (_, i) => raw(-1 - i)));
  while ((await storedCount()) < PARTITIONS * 4) await new Promise((r) => setTimeout(r, 100));
  const warm = PARTITIONS * 4;

  const pids = children.map((c) => c.pid!);
  const cpuBefore = cpuSnapshot(pids);
  const started = performance.now();
  for (let i = 0; i < MESSAGES; i += 500) await producer.send(Array.from({ length: Math.min(500, MESSAGES - i) }, (_, j) => raw(i + j)));
  const preloadPerSecond = MESSAGES / ((performance.now() - started) / 1000);
  let stored = 0;
  let lastPrint = started;
  while (stored < MESSAGES + warm) {
    await new Promise((r) => setTimeout(r, 100));
    stored = await storedCount();
    if (performance.now() - lastPrint > 1000) {
      process.stderr.write(`  run ${run}: ${stored - warm}/${MESSAGES} stored, ${Math.round((stored - warm) / ((performance.now() - started) / 1000))}/s\n`);
      lastPrint = performance.now();
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuDelta(cpuBefore, cpuSnapshot(pids));
  const stages = await stageTimes();
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
  await pipeline?.stop();
  await transport.close();
  await db.drop();
  return { seconds, perSecond: MESSAGES / seconds, preloadPerSecond, cpu, stages };
}

/** Per stage, from the runtime's metrics: batches, mean batch size, and busy seconds (handle + produce). */
async function stageTimes(): Promise<Record<string, { batches: number; meanBatch: number; busySeconds: number }>> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'faultline_stage_batch_seconds');
  const out: Record<string, { batches: number; meanBatch: number; busySeconds: number }> = {};
  const records = (await registry.getMetricsAsJSON()).find((m) => m.name === 'faultline_stage_records_total');
  for (const v of (metric?.values ?? []) as { metricName?: string; labels: Record<string, string | number>; value: number }[]) {
    const stage = String(v.labels.stage);
    out[stage] ??= { batches: 0, meanBatch: 0, busySeconds: 0 };
    if (v.metricName?.endsWith('_count')) out[stage].batches = v.value;
    if (v.metricName?.endsWith('_sum')) out[stage].busySeconds = Math.round(v.value * 100) / 100;
  }
  for (const v of (records?.values ?? []) as { labels: Record<string, string | number>; value: number }[]) {
    const s = out[String(v.labels.stage)];
    if (s && s.batches) s.meanBatch = Math.round(v.value / s.batches);
  }
  registry.resetMetrics();
  return out;
}


async function main(): Promise<void> {
  process.stderr.write(`pipeline bench: ${MESSAGES} check-ins (3 events, 24 hourly averages), ${DEVICES} devices, ${RUNS} runs\n`);
  execSync('bash infra/up.sh', { stdio: 'inherit' });
  const runs: Run[] = [];
  for (let r = 1; r <= RUNS; r++) runs.push(await oneRun(r));
  const throughput = stats(runs.map((r) => r.perSecond));
  const medianRun = runs.find((r) => r.perSecond === throughput.median)!;
  const cpuPerSecond = Object.fromEntries(Object.entries(medianRun.cpu).map(([k, v]) => [k, Math.round((v / medianRun.seconds) * 100) / 100]));
  const bottleneck = Object.entries(cpuPerSecond).sort((a, b) => b[1] - a[1])[0]![0];
  const result = { scenario: 'pipeline', processes: PROCESSES, machine: machineInfo(), messages: MESSAGES, devices: DEVICES, partitions: PARTITIONS, throughput, preload: stats(runs.map((r) => r.preloadPerSecond)), cpuPerSecond, bottleneck, runs };
  const name = PROCESSES === 0 ? 'pipeline' : `pipeline-${PROCESSES}p`;
  writeFileSync(new URL(`./results/${name}.json`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  const round = (n: number) => Math.round(n).toLocaleString('en-US');
  const md = [
    '# Pipeline throughput (all stages, real Kafka + schema registry + Postgres)',
    '',
    `${result.machine.date} · commit ${result.machine.commit} · Node ${result.machine.node} · ${result.machine.cores} cores (${result.machine.cpu}) · ${result.machine.memoryGiB} GiB`,
    '',
    `${MESSAGES.toLocaleString('en-US')} check-ins with 3 events and 24 hourly averages each, ${DEVICES.toLocaleString('en-US')} devices, ${PARTITIONS} partitions, ${PROCESSES === 0 ? 'all stages inside the bench process' : `${PROCESSES} \`faultline start\` processes each running every stage`}; ${RUNS} runs.`,
    '',
    '| measure | median | min | max |',
    '|---|---|---|---|',
    `| check-ins per second, fi.raw.v1 to Postgres | ${round(throughput.median)} | ${round(throughput.min)} | ${round(throughput.max)} |`,
    `| producing into fi.raw.v1 (while the stages run), per second | ${round(result.preload.median)} | ${round(result.preload.min)} | ${round(result.preload.max)} |`,
    '',
    'CPU seconds per wall second during the median run (1.0 = one core busy):',
    '',
    '| process | CPU/s |',
    '|---|---|',
    ...Object.entries(cpuPerSecond).map(([k, v]) => `| ${k} | ${v} |`),
    '',
    ...(Object.keys(medianRun.stages).length === 0 ? [] : [
      'Where the time goes, per stage (busy = handling and producing a batch, summed over partitions worked in parallel):',
      '',
      '| stage | batches | mean batch | busy seconds |',
      '|---|---|---|---|',
      ...Object.entries(medianRun.stages).map(([k, v]) => `| ${k} | ${v.batches} | ${v.meanBatch} | ${v.busySeconds} |`),
      '',
    ]),
    `Bottleneck: **${bottleneck}**${bottleneck === 'faultline' ? ' (the Node.js stage processes: each uses one core)' : ''}.`,
    '',
  ].join('\n');
  writeFileSync(new URL(`./results/${name}.md`, import.meta.url), md);
  process.stdout.write(`${md}\n`);
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
