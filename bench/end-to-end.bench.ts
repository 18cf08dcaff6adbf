// Scenario **end-to-end**: SQS -> bridge -> Kafka -> the pipeline -> Postgres, as deployed: one
// `faultline start --only bridge,pipeline` child process on the infra/ broker, schema registry, SQS server and
// Postgres, chained (the default) or fully split (`split`: PIPELINE_SPLIT=every, each stage its own consumer
// and topic). Variants on the same path:
//   - `rate`: the messages are offered at a fixed rate (e.g. 1,000 per second) instead of all at once, so
//     the latency is that of a normal day, not of draining a backlog;
//   - `embedded`: the embedded default (`npm start`): in-process transport and embedded Postgres in the
//     child, the same SQS server in front.
//
//   node --import tsx bench/end-to-end.bench.ts [--messages 5000] [--devices 1000] [--runs 1] [--processes 1]
//     [--rate 1000] [--embedded] [--split] [--bridge-apart]
//
// The child starts and joins its consumer groups first (warm-up check-ins until they are stored). Then the
// messages are sent into the queue (as fast as SQS takes them, 8 SendMessageBatch calls in flight, or at
// the fixed rate) while the pipeline drains it. Throughput: check-ins / (last row visible - first send).
// Latency per check-in: the stored row's CreatedDate (the persist transaction's time) minus the time its
// batch was accepted by SQS, matched on (IMEINumber, date). With the bridge apart the CPU is also reported per
// child (`bridge`, `pipeline`). BENCH_PRODUCT_ROOT=<work tree>: the faultline run (start, migrate, import) is
// that tree's, measured by this harness (`--compare`, docs/benchmarks.md#compare).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { createPool } from '../db/pool.js';
import { embeddedDatabaseUrl } from '../db/embedded.js';
import { infraEnv } from '../infra/endpoints.js';
import type { Fleet } from '../simulator/index.js';
import { createTestDatabase } from '../support/database.js';
import { resetPipelineTopics } from '../support/kafka.js';
import { freePort } from '../support/process.js';
import { CHAIN } from '../config/pipeline-split.js';
import { createRegistry } from '../schemas/registry.js';
import { registryCodec } from '../stages/runtime/codec.js';
import { kafkaTransport } from '../stages/runtime/transport/kafka.js';
import { pipelineGroups, uncommitted } from './drained.js';
import { cpuDelta, cpuSnapshot } from './process-cpu.js';
import { benchFleet, benchQueue, benchReferenceData, countRows, generateMessages, preload, progress, scenarioArgs, type ScenarioOptions, type ScenarioResult } from './common.js';
import { percentile, stats } from '../support/stats.js';

const WARM_UP = 24;
/** BENCH_CPU_PROF=<dir>: each child writes a V8 CPU profile (--cpu-prof) there on exit. */
const cpuProf = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
const PARTITIONS = 6;
const TIMEOUT_MS = 240_000;

interface Run { perSecond: number; preloadPerSecond: number; p50: number; p95: number; p99: number; timeline: number[]; latencyTimeline: number[]; cpuPerSecond: Record<string, number>; cpuMicrosPerCheckIn: number }

export interface EndToEndOptions {
  /** faultline start processes (Kafka only; the embedded default is one process by design). */
  processes?: number;
  /** Offered check-ins per second; undefined: as fast as SQS takes them. */
  rate?: number;
  /** The embedded default: in-process transport, embedded Postgres. */
  embedded?: boolean;
  /** Every stage its own consumer and topic (PIPELINE_SPLIT=every) instead of the chained default. */
  split?: boolean;
  /** The SQS bridge in a process of its own (`--only bridge` beside `--only pipeline`), as a deployment may run it. */
  bridgeApart?: boolean;
}

/**
 * The faultline whose `faultline` commands this harness runs (start, migrate, import): this checkout, or with
 * BENCH_PRODUCT_ROOT another work tree, so `--compare` measures an older commit with this harness
 * (bench/compare.ts, docs/benchmarks.md#compare). Everything of the product runs in those children: the
 * database is migrated and the fleet imported by the product's own CLI, so each side gets its own schema.
 */
const PRODUCT_ROOT = resolve(process.env.BENCH_PRODUCT_ROOT ?? new URL('..', import.meta.url).pathname);
const CLI = join(PRODUCT_ROOT, 'bin', 'faultline.js');

/** Runs a short `faultline` command of the product (migrate, import); its output is dropped unless it fails. */
function productCommand(args: string[], env: Record<string, string>): void {
  const done = spawnSync(process.execPath, [CLI, ...args], { cwd: PRODUCT_ROOT, env: { ...cleanEnv(), ...env, LOG_LEVEL: 'error' }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`end-to-end: faultline ${args[0]} (${PRODUCT_ROOT}) exited ${done.status}: ${done.stderr.trim().slice(-2000)}`);
}

/** The fleet as an import file in `dir`, for the product's `faultline import`. */
function fleetFile(dir: string, fleet: Fleet): string {
  const file = join(dir, 'fleet.json');
  writeFileSync(file, JSON.stringify(benchReferenceData(fleet)));
  return file;
}

/**
 * Where the stored rows are counted, and how to clean up after the children stopped. `uncommitted`: records the
 * pipeline's consumer groups have not committed yet (bench/drained.ts); none on the embedded default, whose
 * in-process transport the bench cannot see.
 */
interface Store { pool: pg.Pool; env: Record<string, string>; drop(): Promise<void>; uncommitted?: () => Promise<number> }

/** A fresh database on the infra/ Postgres, migrated and given the fleet by the product (`faultline migrate`, `import`). */
async function kafkaStore(fleet: Fleet, split: boolean): Promise<Store> {
  await resetPipelineTopics(['dnp3.bench']);
  // No migration of this checkout's ('0000' is before the first): the product applies its own.
  const db = await createTestDatabase('bench_e2e', { poolMax: 4, upTo: '0000' });
  const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-e2e-'));
  try {
    productCommand(['migrate'], { DATABASE_URL: db.url });
    productCommand(['import', fleetFile(dir, fleet)], { DATABASE_URL: db.url });
  } catch (err) {
    await db.drop();
    throw err;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const { rows: [schema] } = await db.pool.query<{ version: string }>('select max(version) as version from schema_migrations');
  progress(`end-to-end: faultline from ${PRODUCT_ROOT}, its schema up to ${schema?.version}`);
  const env = infraEnv();
  // Only the admin side of a transport: where the children's consumer groups stand.
  const transport = kafkaTransport({ brokers: env.KAFKA_BROKERS!.split(','), codec: await registryCodec(createRegistry(env.SCHEMA_REGISTRY_URL!)), partitions: PARTITIONS });
  const groups = pipelineGroups(transport, split ? CHAIN.slice(1) : []);
  return {
    pool: db.pool, drop: async () => { await transport.close(); await db.drop(); }, uncommitted: () => uncommitted(groups),
    env: { KAFKA_BROKERS: env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL!, DATABASE_URL: db.url, KAFKA_PARTITIONS: String(PARTITIONS), KAFKA_SESSION_TIMEOUT_MS: '10000' },
  };
}

/** A fresh data folder for the embedded default, migrated and the fleet imported with the product's CLI (as a user would). */
async function embeddedStore(fleet: Fleet): Promise<Store> {
  const dataDir = mkdtempSync(join(tmpdir(), 'faultline-bench-embedded-'));
  const port = await freePort();
  const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port), DEMO_DATA: '0', SIMULATE: '0' };
  // An older release's import refuses a schema it has not migrated yet (embedded or not): migrate first.
  productCommand(['migrate'], env);
  productCommand(['import', fleetFile(dataDir, fleet)], env);
  let pool: pg.Pool | undefined;
  return {
    get pool() { return (pool ??= createPool({ connectionString: embeddedDatabaseUrl(dataDir, port), max: 2 })); },
    env,
    async drop() { await pool?.end(); rmSync(dataDir, { recursive: true, force: true }); },
  };
}

/** This process's environment without the infra variables, so a child picks the embedded default. */
function cleanEnv(): Record<string, string | undefined> {
  const { KAFKA_BROKERS: _k, SCHEMA_REGISTRY_URL: _r, DATABASE_URL: _d, ...rest } = process.env;
  return rest;
}

async function oneRun(run: number, messages: number, devices: number, o: EndToEndOptions): Promise<Run> {
  const fleet = benchFleet(devices);
  const data = generateMessages(fleet, WARM_UP + messages);
  const store = o.embedded ? await embeddedStore(fleet) : await kafkaStore(fleet, o.split === true);
  const queue = await benchQueue('bench-e2e');
  const env = infraEnv();
  const processes = o.embedded ? 1 : (o.processes ?? 1);
  const components = o.bridgeApart ? ['bridge', 'pipeline'] : Array.from({ length: processes }, () => 'bridge,pipeline');
  const children = components.map((only) => spawn(process.execPath, [...cpuProf, CLI, 'start', '--only', only], {
    cwd: PRODUCT_ROOT, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...cleanEnv(), ...store.env, SQS_QUEUE_URL: queue.url, SQS_ENDPOINT: env.SQS_ENDPOINT, LOG_LEVEL: 'error', PIPELINE_SPLIT: o.split ? 'every' : '' },
  }));
  const pids = () => children.map((c) => c.pid!);
  // With the bridge apart, each child's CPU is also reported by role: the bridge alone per check-in (issue 34).
  const roles: Record<string, number> = o.bridgeApart ? { bridge: children[0]!.pid!, pipeline: children[1]!.pid! } : {};
  const deadline = Date.now() + TIMEOUT_MS;
  const waitFor = async (count: number, label: string, onTick?: (stored: number) => void) => {
    let stored: number;
    let lastPrint = 0;
    while ((stored = await countRows(store.pool).catch(() => 0)) < count) {
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

    progress(`end-to-end run ${run}: sending ${messages} check-ins into SQS ${o.rate ? `at ${o.rate} per second` : 'at full speed'} while the pipeline drains`);
    const sentAt = new Map<string, number>();
    const keyOf = (imei: string, dateMs: number) => `${imei}|${dateMs}`;
    const measured = data.slice(WARM_UP);
    const cpuBefore = cpuSnapshot(pids(), roles);
    const started = Date.now();
    const timeline: number[] = [];
    let lastSecond = started;
    let lastStored = WARM_UP;
    const tick = (stored: number) => {
      while (Date.now() - lastSecond >= 1000) { timeline.push(stored - lastStored); lastStored = stored; lastSecond += 1000; }
    };
    const sending = preload(queue, measured.map((d) => d.body), {
      ...(o.rate ? { ratePerSecond: o.rate } : {}),
      onSent: (i, at) => { const d = measured[i]!; sentAt.set(keyOf(d.imei, Date.parse(String(d.message.device_data.date))), at); },
    });
    const [preloadPerSecond] = await Promise.all([sending, waitFor(WARM_UP + messages, 'measured', tick)]);
    // The run ends when notify, after persist, has done its part too (bench/drained.ts), not at the last stored row.
    if (store.uncommitted) {
      for (let behind = await store.uncommitted(); behind > 0; behind = await store.uncommitted()) {
        if (Date.now() > deadline) throw new Error(`end-to-end: ${behind} records not committed after ${TIMEOUT_MS / 1000} s`);
        await sleep(25);
      }
    }
    const finished = Date.now();
    const cpu = cpuDelta(cpuBefore, cpuSnapshot(pids(), roles));
    // Three decimals: a per-check-in figure is derived from these (support/bench-compare.ts), and on a loaded
    // machine the bridge alone runs at about 0.1 CPU s/s, where 0.01 would be a 10 % step.
    const cpuPerSecond = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Math.round((v / ((finished - started) / 1000)) * 1000) / 1000]));
    const cpuMicrosPerCheckIn = ((cpu.faultline ?? 0) / messages) * 1e6;
    progress(`  end-to-end run ${run}: CPU seconds per second: ${JSON.stringify(cpuPerSecond)}; faultline ${Math.round(cpuMicrosPerCheckIn)} µs per check-in`);
    timeline.push(WARM_UP + messages - lastStored);

    const { rows } = await store.pool.query<{ IMEINumber: string; d: string; c: string }>(
      `select "IMEINumber", (extract(epoch from "date") * 1000)::bigint as d, (extract(epoch from "CreatedDate") * 1000)::bigint as c from device_records`);
    // Latency of each row, and per second of the run the median latency of the rows stored in it.
    const bySecond: number[][] = [];
    const latencies = rows.flatMap((r) => {
      const sent = sentAt.get(keyOf(r.IMEINumber, Number(r.d)));
      if (sent === undefined) return [];
      const latency = Number(r.c) - sent;
      (bySecond[Math.max(0, Math.floor((Number(r.c) - started) / 1000))] ??= []).push(latency);
      return [latency];
    }).sort((a, b) => a - b);
    const latencyTimeline = Array.from({ length: bySecond.length }, (_, i) => {
      const xs = bySecond[i]?.sort((a, b) => a - b);
      return xs?.length ? percentile(xs, 50) : Number.NaN;
    });
    if (latencies.length !== messages) progress(`  end-to-end run ${run}: matched ${latencies.length} of ${messages} rows to a send time`);
    return {
      perSecond: messages / ((finished - started) / 1000), preloadPerSecond,
      p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), timeline, latencyTimeline, cpuPerSecond, cpuMicrosPerCheckIn,
    };
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    await queue.delete();
    await store.drop();
  }
}

export async function runEndToEnd({ messages, devices, runs }: ScenarioOptions, o: EndToEndOptions = {}): Promise<ScenarioResult & { preload: ReturnType<typeof stats> }> {
  const all: Run[] = [];
  for (let run = 1; run <= runs; run++) all.push(await oneRun(run, messages, devices, o));
  const processes = o.embedded ? 1 : (o.processes ?? 1);
  const scenario = o.embedded ? 'embedded' : `end-to-end${o.split ? ' split' : ''}${o.bridgeApart ? ' bridge apart' : ''}${o.rate ? ` @${o.rate}/s` : ''}`;
  const shape = o.split ? 'fully split: each stage its own consumer and topic' : 'chained';
  const how = o.embedded
    ? 'the embedded default (`npm start`): one process with bridge, chained stages, in-process transport and embedded Postgres'
    : o.bridgeApart ? `2 faultline start processes (one the SQS bridge, one the pipeline, ${shape}), ${PARTITIONS} partitions`
      : `${processes} faultline start ${processes === 1 ? 'process' : 'processes'} (bridge + pipeline${processes === 1 ? '' : ' each'}, ${shape}), ${PARTITIONS} partitions`;
  const offered = o.rate ? `messages offered at ${o.rate} per second` : 'messages sent into SQS at full speed while the pipeline drains';
  const throughput = stats(all.map((r) => r.perSecond));
  const median = all.find((r) => r.perSecond === throughput.median)!;
  return {
    scenario, messages, devices, throughput,
    latency: { p50: stats(all.map((r) => r.p50)), p95: stats(all.map((r) => r.p95)), p99: stats(all.map((r) => r.p99)) },
    preload: stats(all.map((r) => r.preloadPerSecond)),
    timeline: median.timeline,
    latencyTimeline: median.latencyTimeline,
    cpuPerSecond: median.cpuPerSecond,
    cpuMicrosPerCheckIn: stats(all.map((r) => r.cpuMicrosPerCheckIn)),
    bottleneck: Object.entries(median.cpuPerSecond).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'unknown',
    note: `${how}; ${offered}; latency = CreatedDate - SQS send`,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { processes: { type: 'string' }, rate: { type: 'string' }, embedded: { type: 'boolean', default: false }, split: { type: 'boolean', default: false }, 'bridge-apart': { type: 'boolean', default: false } }, strict: false });
  runEndToEnd(scenarioArgs({ messages: 5000, devices: 1000, runs: 1 }), {
    processes: Number(values.processes ?? 1), embedded: values.embedded === true, split: values.split === true, bridgeApart: values['bridge-apart'] === true, ...(values.rate ? { rate: Number(values.rate) } : {}),
  })
    .then((r) => { process.stdout.write(`${JSON.stringify(r, null, 2)}\n`); })
    .catch((err: unknown) => { console.error(err); process.exit(1); });
}
