// Scenario **pipeline alone**: check-ins per second through every stage (enrich, dedup, fault-compute,
// persist, notify) from fi.raw.v1 to Postgres, with the real broker, schema registry and Postgres of infra/,
// chained (the default) or fully split (--split: each stage its own consumer and topic). The stages start and
// join their groups first; then the clock runs from the first record produced into fi.raw.v1 until every
// check-in is stored and every stage's consumer group has committed all it read (bench/drained.ts: notify's
// last batches are part of the cost). Messages carry 3 events and 24 hourly averages. `npm run bench` runs it
// as the `pipeline` and `pipeline split` scenarios (runPipelineAlone, one `faultline start` child process).
//
//   npm run bench:pipeline -- [--messages 20000] [--devices 10000] [--runs 3] [--processes 0] [--split]
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
import { resetPipelineTopics } from '../support/kafka.js';
import { machineInfo } from '../support/machine.js';
import { registry } from '../config/metrics.js';
import { cpuDelta, cpuSnapshot } from './process-cpu.js';
import { stats } from '../support/stats.js';
import { createTestDatabase } from '../support/database.js';
import { CHAIN } from '../config/pipeline-split.js';
import { progress, type ScenarioOptions, type ScenarioResult } from './common.js';
import { pipelineGroups, uncommitted } from './drained.js';
import type { Stats } from '../support/stats.js';

const PARTITIONS = 6;
const env = { ...infraEnv(), ...process.env } as Record<string, string>;

interface Run { seconds: number; perSecond: number; preloadPerSecond: number; cpu: Record<string, number>; timeline: number[]; stages: Record<string, { batches: number; meanBatch: number; busySeconds: number }> }

interface PipelineRunOptions {
  messages: number;
  devices: number;
  /** 0: every stage inside this process. N: N `faultline start` processes (the group splits the partitions). */
  processes: number;
  /** Every stage its own consumer and topic (PIPELINE_SPLIT=every); default chained. */
  split: boolean;
}

async function oneRun(run: number, { messages: MESSAGES, devices: DEVICES, processes: PROCESSES, split }: PipelineRunOptions): Promise<Run> {
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
  const children = Array.from({ length: PROCESSES }, () => spawn(process.execPath, ['bin/faultline.js', 'start', '--only', 'pipeline'], {
    cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, KAFKA_BROKERS: env.KAFKA_BROKERS, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL, DATABASE_URL: db.url, KAFKA_PARTITIONS: String(PARTITIONS), KAFKA_SESSION_TIMEOUT_MS: '10000', LOG_LEVEL: 'error', PIPELINE_SPLIT: split ? 'every' : '' },
  }));
  const cuts = split ? CHAIN.slice(1) : [];
  const pipeline = PROCESSES === 0 ? await startPipeline({ transport, pool: db.pool, modelMap: loadModelMap(settings.modelMapFile), lowCurrentA: settings.lowCurrentA, split: cuts }) : null;
  const groups = pipelineGroups(transport, cuts);
  // Warm-up until one record per partition went through: every process has joined every group.
  await producer.send(Array.from({ length: PARTITIONS * 4 }, (_, i) => raw(-1 - i)));
  while ((await storedCount()) < PARTITIONS * 4 || (await uncommitted(groups)) !== 0) await new Promise((r) => setTimeout(r, 100));
  const warm = PARTITIONS * 4;

  const pids = children.map((c) => c.pid!);
  const cpuBefore = cpuSnapshot(pids);
  const started = performance.now();
  for (let i = 0; i < MESSAGES; i += 500) await producer.send(Array.from({ length: Math.min(500, MESSAGES - i) }, (_, j) => raw(i + j)));
  const preloadPerSecond = MESSAGES / ((performance.now() - started) / 1000);
  // The phase ends when every group has committed everything after the last row is stored (bench/drained.ts).
  let stored = 0;
  let behind = Number.NaN;
  let storedSeconds: number | undefined;
  let lastPrint = started;
  const timeline: number[] = [];
  let lastStored = warm;
  while (stored < MESSAGES + warm || behind !== 0) {
    // Finer steps once every row is stored: the commit is near, and a poll step late is a poll step of idle time.
    await new Promise((r) => setTimeout(r, Number.isNaN(behind) ? 100 : 25));
    stored = await storedCount();
    if (stored >= MESSAGES + warm) {
      storedSeconds ??= (performance.now() - started) / 1000;
      behind = await uncommitted(groups);
    }
    while (performance.now() - lastPrint >= 1000) {
      timeline.push(stored - lastStored);
      lastStored = stored;
      lastPrint += 1000;
      const tail = Number.isNaN(behind) ? '' : `, ${behind} records not yet committed`;
      progress(`  pipeline${split ? ' split' : ''} run ${run}: ${stored - warm}/${MESSAGES} stored${tail}, ${Math.round((stored - warm) / ((performance.now() - started) / 1000))}/s`);
    }
  }
  timeline.push(stored - lastStored);
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuDelta(cpuBefore, cpuSnapshot(pids));
  progress(`  pipeline${split ? ' split' : ''} run ${run}: every check-in stored after ${storedSeconds!.toFixed(2)} s, every group committed after ${seconds.toFixed(2)} s`);
  const stages = await stageTimes();
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
  await pipeline?.stop();
  await transport.close();
  await db.drop();
  return { seconds, perSecond: MESSAGES / seconds, preloadPerSecond, cpu, timeline, stages };
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


/** The `pipeline` / `pipeline split` scenario of `npm run bench`: one `faultline start --only pipeline` child. */
export async function runPipelineAlone({ messages, devices, runs }: ScenarioOptions, { split = false }: { split?: boolean } = {}): Promise<ScenarioResult> {
  const all: Run[] = [];
  for (let r = 1; r <= runs; r++) all.push(await oneRun(r, { messages, devices, processes: 1, split }));
  return summarise(all, messages, devices, split);
}

function summarise(all: Run[], messages: number, devices: number, split: boolean): ScenarioResult & { preload: Stats } {
  const throughput = stats(all.map((r) => r.perSecond));
  const median = all.find((r) => r.perSecond === throughput.median)!;
  const cpuPerSecond = Object.fromEntries(Object.entries(median.cpu).map(([k, v]) => [k, Math.round((v / median.seconds) * 100) / 100]));
  return {
    scenario: `pipeline${split ? ' split' : ''}`, messages, devices, throughput,
    preload: stats(all.map((r) => r.preloadPerSecond)),
    timeline: median.timeline,
    cpuPerSecond,
    cpuMicrosPerCheckIn: stats(all.map((r) => ((r.cpu.faultline ?? 0) / messages) * 1e6)),
    bottleneck: Object.entries(cpuPerSecond).filter(([k]) => k !== 'bench').sort((a, b) => b[1] - a[1])[0]![0],
    note: `fi.raw.v1 to Postgres, no SQS: ${split ? 'fully split (each stage its own consumer and topic)' : 'chained'}, ${PARTITIONS} partitions; the bench process produces the records`,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { messages: { type: 'string', default: '20000' }, devices: { type: 'string', default: '10000' }, runs: { type: 'string', default: '3' }, processes: { type: 'string', default: '0' }, split: { type: 'boolean', default: false } } });
  const [messages, devices, runs, processes, split] = [Number(values.messages), Number(values.devices), Number(values.runs), Number(values.processes), values.split];
  progress(`pipeline bench: ${messages} check-ins (3 events, 24 hourly averages), ${devices} devices, ${runs} runs, ${split ? 'fully split' : 'chained'}`);
  execSync('bash infra/up.sh', { stdio: 'inherit' });
  const all: Run[] = [];
  for (let r = 1; r <= runs; r++) all.push(await oneRun(r, { messages, devices, processes, split }));
  const result = { ...summarise(all, messages, devices, split), processes, machine: machineInfo(), partitions: PARTITIONS, runs: all };
  const medianRun = all.find((r) => r.perSecond === result.throughput.median)!;
  const name = `pipeline${split ? '-split' : ''}${processes === 0 ? '' : `-${processes}p`}`;
  writeFileSync(new URL(`./results/${name}.json`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  const round = (n: number) => Math.round(n).toLocaleString('en-US');
  const md = [
    `# Pipeline throughput (${split ? 'fully split' : 'chained'}, real Kafka + schema registry + Postgres)`,
    '',
    `${result.machine.date} · commit ${result.machine.commit} · Node ${result.machine.node} · ${result.machine.cores} cores (${result.machine.cpu}) · ${result.machine.memoryGiB} GiB`,
    '',
    `${messages.toLocaleString('en-US')} check-ins with 3 events and 24 hourly averages each, ${devices.toLocaleString('en-US')} devices, ${PARTITIONS} partitions, ${processes === 0 ? 'all stages inside the bench process' : `${processes} \`faultline start\` processes`}; ${runs} runs.`,
    '',
    '| measure | median | min | max |',
    '|---|---|---|---|',
    `| check-ins per second, fi.raw.v1 to Postgres | ${round(result.throughput.median)} | ${round(result.throughput.min)} | ${round(result.throughput.max)} |`,
    `| faultline CPU µs per check-in | ${round(result.cpuMicrosPerCheckIn!.median)} | ${round(result.cpuMicrosPerCheckIn!.min)} | ${round(result.cpuMicrosPerCheckIn!.max)} |`,
    `| producing into fi.raw.v1 (while the stages run), per second | ${round(result.preload.median)} | ${round(result.preload.min)} | ${round(result.preload.max)} |`,
    '',
    'CPU seconds per wall second during the median run (1.0 = one core busy):',
    '',
    '| process | CPU/s |',
    '|---|---|',
    ...Object.entries(result.cpuPerSecond!).map(([k, v]) => `| ${k} | ${v} |`),
    '',
    ...(Object.keys(medianRun.stages).length === 0 ? [] : [
      'Where the time goes, per stage (busy = handling and producing a batch, summed over partitions worked in parallel):',
      '',
      '| stage | batches | mean batch | busy seconds |',
      '|---|---|---|---|',
      ...Object.entries(medianRun.stages).map(([k, v]) => `| ${k} | ${v.batches} | ${v.meanBatch} | ${v.busySeconds} |`),
      '',
    ]),
    `Bottleneck: **${result.bottleneck}**${result.bottleneck === 'faultline' ? ' (the Node.js process: one core at most)' : ''}.`,
    '',
  ].join('\n');
  writeFileSync(new URL(`./results/${name}.md`, import.meta.url), md);
  process.stdout.write(`${md}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) main().catch((err: unknown) => { console.error(err); process.exit(1); });
