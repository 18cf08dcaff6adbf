// Scenario **per stage**: each stage alone, reading a topic that is already full, to show where the time
// goes. fi.raw.v1 is filled with the bench messages; then enrich runs alone until fi.enriched.v1 holds them
// all, then dedup alone on that, and so on through fault-compute, persist and notify. Each stage runs in
// this process on the real broker, schema registry and Postgres of infra/.
//
//   node --import tsx bench/stages.bench.ts [--messages 10000] [--devices 10000] [--runs 3]
//
// Rate of a stage: records / (all outputs visible - first batch handed to the stage), so the seconds a
// consumer group takes to form are not charged to the stage. (Counting from the first output seen was too
// kind: a stage that handles its 6 partitions at once publishes most of its output in one burst.) After the measured runs, one more pass runs with the V8 profiler on and
// the profile of the slowest stage is written to bench/results/profile-<stage>.cpuprofile (open it in
// Chrome DevTools or speedscope), with its hottest functions in the report.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { loadModelMap, loadSettings } from '../config/settings.js';
import { infraEnv } from '../infra/endpoints.js';
import { TOPICS } from '../schemas/avro/topics.js';
import type { RawMessage } from '../schemas/avro/values.js';
import { createRegistry } from '../schemas/registry.js';
import { buildStages, type StageName } from '../stages/pipeline.js';
import { registryCodec } from '../stages/runtime/codec.js';
import { runStage } from '../stages/runtime/runner.js';
import { kafkaTransport } from '../stages/runtime/transport/kafka.js';
import { resetPipelineTopics } from '../support/kafka.js';
import { benchDatabase, benchFleet, generateMessages, progress, scenarioArgs, type ScenarioOptions, type ScenarioResult } from './common.js';
import { stats, type Stats } from '../support/stats.js';
import { cpuDelta, cpuSnapshot } from './process-cpu.js';
import { portable, type Profile } from '../support/cpu-profile.js';

const PARTITIONS = 6;
const DNP3_TOPIC = 'dnp3.bench';
const TIMEOUT_MS = Number(process.env.BENCH_STAGE_TIMEOUT_MS ?? 300_000);
/** Each stage and the topic whose fill shows its progress. */
const CHAIN: readonly [StageName, string][] = [
  ['enrich', TOPICS.enriched], ['dedup', TOPICS.deduped], ['fault-compute', TOPICS.computed],
  ['persist', TOPICS.persisted], ['notify', DNP3_TOPIC],
];

interface StageRun { perSecond: number; joinSeconds: number; cpuPerSecond: Record<string, number> }
export interface StageResult { stage: string; perSecond: Stats; joinSeconds: Stats; cpuPerSecond: Record<string, number>; bottleneck: string }
export interface StagesResult extends ScenarioResult { stages: StageResult[]; profile?: { stage: string; file: string; top: { fn: string; selfPercent: number }[] } }

async function topicCount(admin: ReturnType<Kafka['admin']>, topic: string): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(topic).catch(() => []);
  return offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
}

/** One pass through the chain; with `profile`, a CPU profile of each stage's work is returned too. */
async function onePass(run: number, messages: number, devices: number, profile: boolean): Promise<{ runs: Map<string, StageRun>; profiles: Map<string, object> }> {
  await resetPipelineTopics([DNP3_TOPIC]);
  const env = infraEnv();
  const fleet = benchFleet(devices);
  const db = await benchDatabase('bench_stages', fleet, 8);
  const transport = kafkaTransport({ brokers: env.KAFKA_BROKERS!.split(','), codec: await registryCodec(createRegistry(env.SCHEMA_REGISTRY_URL!)), partitions: PARTITIONS, sessionTimeoutMs: 10_000 });
  const admin = new Kafka({ brokers: env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const session = new Session();
  const runs = new Map<string, StageRun>();
  const profiles = new Map<string, object>();
  try {
    await transport.ensureTopics([...Object.values(TOPICS), DNP3_TOPIC]);
    progress(`stages run ${run}: filling ${TOPICS.raw} with ${messages} check-ins`);
    const producer = transport.producer();
    const data = generateMessages(fleet, messages);
    for (let i = 0; i < data.length; i += 500) {
      await producer.send(data.slice(i, i + 500).map((d, j) => {
        const value: RawMessage = { messageId: `stages-${run}-${i + j}`, source: 'sqs', receivedAt: Date.now(), imei: d.imei, body: d.body };
        return { topic: TOPICS.raw, key: d.imei, value };
      }));
    }
    const settings = loadSettings({});
    const stages = buildStages({ transport, pool: db.pool, modelMap: loadModelMap(settings.modelMapFile), lowCurrentA: settings.lowCurrentA });
    if (profile) { session.connect(); await session.post('Profiler.enable'); }
    for (const [name, output] of CHAIN) {
      const cpuBefore = cpuSnapshot([]);
      const subscribed = performance.now();
      if (profile) await session.post('Profiler.start');
      const stage = stages[name];
      let first: number | undefined;
      const handle = stage.handle.bind(stage);
      stage.handle = (batch, controls) => { first ??= performance.now(); return handle(batch, controls); };
      const subscription = await runStage(stage, { transport });
      let count = 0;
      let lastPrint = 0;
      while ((count = await topicCount(admin, output)) < messages) {
        if (performance.now() - subscribed > TIMEOUT_MS) throw new Error(`stage ${name}: ${count}/${messages} after ${TIMEOUT_MS / 1000} s`);
        if (performance.now() - lastPrint > 1000) { progress(`  stages run ${run}: ${name} ${count}/${messages}`); lastPrint = performance.now(); }
        await sleep(5);
      }
      const done = performance.now();
      if (profile) profiles.set(name, (await session.post('Profiler.stop')).profile);
      first ??= subscribed;
      await subscription.stop();
      const seconds = (done - subscribed) / 1000;
      const cpu = cpuDelta(cpuBefore, cpuSnapshot([]));
      runs.set(name, {
        perSecond: messages / Math.max((done - first) / 1000, 0.001),
        joinSeconds: Math.round(((first - subscribed) / 1000) * 10) / 10,
        cpuPerSecond: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Math.round((v / seconds) * 100) / 100])),
      });
      progress(`  stages run ${run}: ${name} ${Math.round(runs.get(name)!.perSecond)}/s (group formed in ${runs.get(name)!.joinSeconds} s)`);
    }
  } finally {
    if (profile) session.disconnect();
    await admin.disconnect();
    await transport.close();
    await db.drop();
  }
  return { runs, profiles };
}

/** Self time per function of a V8 profile, highest first. */
function hottest(profile: object, limit = 12): { fn: string; selfPercent: number }[] {
  const p = profile as { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]; samples: number[]; timeDeltas: number[] };
  const selfById = new Map<number, number>();
  p.samples.forEach((id, i) => selfById.set(id, (selfById.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const byFn = new Map<string, number>();
  for (const n of p.nodes) {
    // Relative to the checkout; a compared older tree's node_modules is a link to ours, so cut at node_modules/.
    const file = n.callFrame.url.replace(/^file:\/\//, '').replace(new URL('..', import.meta.url).pathname, '').replace(/^\/.*?\/node_modules\//, 'node_modules/');
    const fn = `${n.callFrame.functionName || '(anonymous)'} ${file ? `${file}:${n.callFrame.lineNumber + 1}` : ''}`.trim();
    byFn.set(fn, (byFn.get(fn) ?? 0) + (selfById.get(n.id) ?? 0));
  }
  const total = [...byFn.values()].reduce((a, b) => a + b, 0) || 1;
  return [...byFn].filter(([fn]) => fn !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, limit)
    .map(([fn, t]) => ({ fn, selfPercent: Math.round((t / total) * 1000) / 10 }));
}

export async function runStages({ messages, devices, runs }: ScenarioOptions): Promise<StagesResult> {
  const passes: Map<string, StageRun>[] = [];
  for (let run = 1; run <= runs; run++) passes.push((await onePass(run, messages, devices, false)).runs);
  const stages: StageResult[] = CHAIN.map(([name]) => {
    const of = passes.map((p) => p.get(name)!);
    const rate = stats(of.map((r) => r.perSecond));
    const median = of.find((r) => r.perSecond === rate.median)!;
    const bottleneck = Object.entries(median.cpuPerSecond).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'unknown';
    return { stage: name, perSecond: rate, joinSeconds: stats(of.map((r) => r.joinSeconds)), cpuPerSecond: median.cpuPerSecond, bottleneck };
  });
  const slowest = [...stages].sort((a, b) => a.perSecond.median - b.perSecond.median)[0]!;
  progress(`stages: profiling pass (slowest stage: ${slowest.stage})`);
  const { profiles } = await onePass(runs + 1, messages, devices, true);
  const file = `profile-${slowest.stage}.cpuprofile`;
  const slowProfile = profiles.get(slowest.stage);
  if (slowProfile) writeFileSync(new URL(`./results/${file}`, import.meta.url), JSON.stringify(portable(slowProfile as Profile)));
  // The chain is as fast as its slowest stage when every stage runs at once on its own core.
  return {
    scenario: 'per stage', messages, devices, throughput: slowest.perSecond, timeline: [],
    note: `each stage alone from a full topic, in one process; the row is the slowest stage (${slowest.stage}); the table below has them all`,
    stages,
    ...(slowProfile ? { profile: { stage: slowest.stage, file, top: hottest(slowProfile) } } : {}),
  };
}

/** The per-stage table and the profile summary, for the Markdown reports. */
export function stagesMarkdown(r: StagesResult): string[] {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  return [
    '| stage | records/s (median) | min – max | group formed (s) | CPU s per s | bottleneck |',
    '|---|---|---|---|---|---|',
    ...r.stages.map((s) => `| ${s.stage} | ${fmt(s.perSecond.median)} | ${fmt(s.perSecond.min)} – ${fmt(s.perSecond.max)} | ${s.joinSeconds.median} | ${Object.entries(s.cpuPerSecond).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(', ')} | ${s.bottleneck} |`),
    '',
    ...(r.profile ? [
      `CPU profile of the slowest stage, **${r.profile.stage}** ([${r.profile.file}](${r.profile.file}), open in Chrome DevTools or speedscope); hottest functions by self time:`,
      '',
      '| function | self % |',
      '|---|---|',
      ...r.profile.top.map((t) => `| \`${t.fn.replace(/\|/g, '\\|')}\` | ${t.selfPercent} |`),
      '',
    ] : []),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runStages(scenarioArgs({ messages: 10000, devices: 10000, runs: 3 }))
    .then((r) => {
      writeFileSync(new URL('./results/stages.json', import.meta.url), `${JSON.stringify(r, null, 2)}\n`);
      const md = ['# Per stage (each stage alone from a full topic)', '', `${r.messages.toLocaleString('en-US')} check-ins, ${r.devices.toLocaleString('en-US')} devices.`, '', ...stagesMarkdown(r)].join('\n');
      writeFileSync(new URL('./results/stages.md', import.meta.url), `${md}\n`);
      process.stdout.write(`${md}\n`);
    })
    .catch((err: unknown) => { console.error(err); process.exit(1); });
}
