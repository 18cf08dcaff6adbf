// Scenario **end-to-end**: SQS -> bridge -> Kafka -> every stage -> Postgres, as deployed: one
// `faultline start --only bridge,enrich,dedup,fault-compute,persist,notify,rejected` child process on the
// infra/ broker, schema registry, SQS server and Postgres.
//
//   node --import tsx bench/end-to-end.bench.ts [--messages 5000] [--devices 1000] [--runs 1] [--processes 1]
//
// The child starts and joins its consumer groups first (warm-up check-ins until they are stored). Then the
// messages are sent into the queue as fast as SQS takes them (8 SendMessageBatch calls in flight) while
// the pipeline drains it. Throughput: check-ins / (last row visible - first send). Latency per check-in:
// the stored row's CreatedDate (the persist transaction's time) minus the time its batch was accepted by
// SQS, matched on (IMEINumber, date).
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { infraEnv } from '../infra/endpoints.js';
import { resetPipelineTopics } from '../test/helpers/kafka.js';
import { cpuDelta, cpuSnapshot } from './process-cpu.js';
import { benchDatabase, benchFleet, benchQueue, countRows, generateMessages, percentile, preload, progress, scenarioArgs, stats, type ScenarioOptions, type ScenarioResult } from './common.js';

const WARM_UP = 24;
/** BENCH_CPU_PROF=<dir>: each child writes a V8 CPU profile (--cpu-prof) there on exit. */
const cpuProf = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
const PARTITIONS = 6;
const TIMEOUT_MS = 240_000;

interface Run { perSecond: number; preloadPerSecond: number; p50: number; p95: number; p99: number; timeline: number[]; cpuPerSecond: Record<string, number> }

async function oneRun(run: number, messages: number, devices: number, processes: number): Promise<Run> {
  await resetPipelineTopics(['dnp3.bench']);
  const fleet = benchFleet(devices);
  const data = generateMessages(fleet, WARM_UP + messages);
  const db = await benchDatabase('bench_e2e', fleet, 4);
  const queue = await benchQueue('bench-e2e');
  const env = infraEnv();
  const children = Array.from({ length: processes }, () => spawn(process.execPath, [...cpuProf, 'bin/faultline.js', 'start', '--only', 'bridge,enrich,dedup,fault-compute,persist,notify,rejected'], {
    cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env, KAFKA_BROKERS: env.KAFKA_BROKERS, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL, DATABASE_URL: db.url,
      SQS_QUEUE_URL: queue.url, SQS_ENDPOINT: env.SQS_ENDPOINT, KAFKA_PARTITIONS: String(PARTITIONS), KAFKA_SESSION_TIMEOUT_MS: '10000', LOG_LEVEL: 'error',
    },
  }));
  const pids = () => children.map((c) => c.pid!);
  const deadline = Date.now() + TIMEOUT_MS;
  const waitFor = async (count: number, label: string, onTick?: (stored: number) => void) => {
    let stored: number;
    let lastPrint = 0;
    while ((stored = await countRows(db)) < count) {
      const dead = children.find((c) => c.exitCode !== null);
      if (dead) throw new Error(`faultline start exited with ${dead.exitCode}`);
      if (Date.now() > deadline) throw new Error(`end-to-end: ${label}: ${stored}/${count} stored after ${TIMEOUT_MS / 1000} s`);
      onTick?.(stored);
      if (Date.now() - lastPrint > 1000) { progress(`  end-to-end run ${run}: ${label} ${stored}/${count} stored`); lastPrint = Date.now(); }
      await sleep(50);
    }
    onTick?.(stored);
    return stored;
  };
  try {
    progress(`end-to-end run ${run}: warm-up (${WARM_UP} check-ins, the stages join their groups)`);
    await preload(queue, data.slice(0, WARM_UP).map((d) => d.body));
    await waitFor(WARM_UP, 'warm-up');

    progress(`end-to-end run ${run}: sending ${messages} check-ins into SQS while the pipeline drains`);
    const sentAt = new Map<string, number>();
    const keyOf = (imei: string, dateMs: number) => `${imei}|${dateMs}`;
    const measured = data.slice(WARM_UP);
    const cpuBefore = cpuSnapshot(pids());
    const started = Date.now();
    const timeline: number[] = [];
    let lastSecond = started;
    let lastStored = WARM_UP;
    const tick = (stored: number) => {
      while (Date.now() - lastSecond >= 1000) { timeline.push(stored - lastStored); lastStored = stored; lastSecond += 1000; }
    };
    const sending = preload(queue, measured.map((d) => d.body), {
      onSent: (i, at) => { const d = measured[i]!; sentAt.set(keyOf(d.imei, Date.parse(String(d.message.device_data.date))), at); },
    });
    const [preloadPerSecond] = await Promise.all([sending, waitFor(WARM_UP + messages, 'measured', tick)]);
    const finished = Date.now();
    const cpu = cpuDelta(cpuBefore, cpuSnapshot(pids()));
    const cpuPerSecond = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Math.round((v / ((finished - started) / 1000)) * 100) / 100]));
    progress(`  end-to-end run ${run}: CPU seconds per second: ${JSON.stringify(cpuPerSecond)}`);
    timeline.push(WARM_UP + messages - lastStored);

    const { rows } = await db.pool.query<{ IMEINumber: string; d: string; c: string }>(
      `select "IMEINumber", (extract(epoch from "date") * 1000)::bigint as d, (extract(epoch from "CreatedDate") * 1000)::bigint as c from device_records`);
    const latencies = rows.flatMap((r) => {
      const sent = sentAt.get(keyOf(r.IMEINumber, Number(r.d)));
      return sent === undefined ? [] : [Number(r.c) - sent];
    }).sort((a, b) => a - b);
    if (latencies.length !== messages) progress(`  end-to-end run ${run}: matched ${latencies.length} of ${messages} rows to a send time`);
    return {
      perSecond: messages / ((finished - started) / 1000), preloadPerSecond,
      p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), timeline, cpuPerSecond,
    };
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    await queue.delete();
    await db.drop();
  }
}

export async function runEndToEnd({ messages, devices, runs }: ScenarioOptions, { processes = 1 }: { processes?: number } = {}): Promise<ScenarioResult & { preload: ReturnType<typeof stats> }> {
  const all: Run[] = [];
  for (let run = 1; run <= runs; run++) all.push(await oneRun(run, messages, devices, processes));
  const throughput = stats(all.map((r) => r.perSecond));
  const median = all.find((r) => r.perSecond === throughput.median)!;
  return {
    scenario: 'end-to-end', messages, devices, throughput,
    latency: { p50: stats(all.map((r) => r.p50)), p95: stats(all.map((r) => r.p95)), p99: stats(all.map((r) => r.p99)) },
    preload: stats(all.map((r) => r.preloadPerSecond)),
    timeline: median.timeline,
    cpuPerSecond: median.cpuPerSecond,
    bottleneck: Object.entries(median.cpuPerSecond).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'unknown',
    note: `${processes} faultline start ${processes === 1 ? 'process' : 'processes'} (bridge + all stages${processes === 1 ? '' : ' each'}), ${PARTITIONS} partitions; messages sent into SQS at full speed while the pipeline drains; latency = CreatedDate - SQS send`,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--processes');
  runEndToEnd(scenarioArgs({ messages: 5000, devices: 1000, runs: 1 }), { processes: at > 0 ? Number(process.argv[at + 1]) : 1 })
    .then((r) => { process.stdout.write(`${JSON.stringify(r, null, 2)}\n`); })
    .catch((err: unknown) => { console.error(err); process.exit(1); });
}
