// `faultline start`: every component in one process, or `--only a,b` for a subset so each can run as its
// own process. With no environment it is the embedded default (docs/decisions.md#embedded-default): embedded Postgres, in-process
// transport, spool inbox, demo data, simulator, API on 127.0.0.1:8080 (every listener on loopback unless HOST is set).
import { mkdirSync } from 'node:fs';
import { log } from '../config/log.js';
import { loadSettings, type Settings } from '../config/settings.js';
import { sourceFromSettings } from '../stages/bridge/index.js';
import { exposeSourceStats } from '../stages/bridge/metrics.js';
import { STAGE_NAMES, startPipeline, type StageName } from '../stages/pipeline.js';
import { stagesOfLabel } from '../stages/shape.js';
import { exposeConsumerLag } from '../stages/runtime/lag-metric.js';
import { transportFromSettings } from '../stages/runtime/transport/from-settings.js';
import type { Transport } from '../stages/runtime/transport/transport.js';
import type { Source } from '../stages/bridge/source.js';
import { openRuntime, type Runtime } from './runtime.js';
import { demoPasswordsInUse, loadDemoData } from './demo.js';
import { generatedSecretsWarning } from './generated-secrets.js';
import { embeddedPasswordFile } from '../db/embedded.js';
import { startSimulation } from './simulate.js';
import { startDeliveryWorker } from '../multispeak/delivery/worker.js';
import { startAlarms } from '../alarms/start.js';
import { organisationFleetSummary } from '../api/fleet/summary.js';
import { startIncidentWorker } from '../incidents/worker.js';
import { startFleetWorker } from '../fleet-health/worker.js';
import { fleetSteps } from '../fleet-health/steps.js';
import { startDemoOms } from './demo-oms.js';
import { dnp3Unconfigured, startDnp3 } from './dnp3.js';
import { startIec104 } from './iec104.js';
import { startStorageMaintenance } from '../storage/maintenance.js';
import { ownSignals, type Drain } from './drain.js';
import { startApi } from './start-api.js';

const OTHER_COMPONENTS = ['bridge', 'api', 'delivery', 'alarms', 'dnp3', 'iec104', 'incidents', 'fleet', 'simulate'] as const;
/** What `--only` runs: the pipeline's stages (whole segments of the shape) and the other components. */
export const COMPONENTS = [...OTHER_COMPONENTS, ...STAGE_NAMES] as const;
export type Component = (typeof COMPONENTS)[number];

/**
 * `--only a,b`: component names, `pipeline` for every stage, or a segment label such as `persist..notify`
 * (stages/shape.ts). Whether the stages make whole segments is checked when the pipeline starts.
 */
export function parseOnly(text: string | undefined): Set<Component> | null {
  if (!text) return null;
  const chosen = new Set<Component>();
  const unknown: string[] = [];
  for (const name of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    if (name === 'pipeline') for (const s of STAGE_NAMES) chosen.add(s);
    else if ((COMPONENTS as readonly string[]).includes(name)) chosen.add(name as Component);
    else if (stagesOfLabel(name)) for (const s of stagesOfLabel(name)!) chosen.add(s);
    else unknown.push(name);
  }
  if (unknown.length) throw new Error(`--only: unknown component ${unknown.join(', ')}; choose from pipeline, ${COMPONENTS.join(', ')} or a segment such as persist..notify`);
  return chosen;
}

/**
 * On the in-process transport (no KAFKA_BROKERS) the stages' topics live in this process's memory, so a `--only`
 * that runs the bridge or some stages without the whole pipeline would acknowledge spool files and SQS messages
 * (or pass records on) with nobody in this process to read them: they would be lost. The sentence that refuses it,
 * or null (docs/decisions.md#only-on-the-in-process-transport).
 */
export function inProcessOnlyRefusal(only: Set<Component> | null, kafka: boolean): string | null {
  if (!only || kafka) return null;
  const stages = STAGE_NAMES.filter((s) => only.has(s));
  const missing = STAGE_NAMES.filter((s) => !only.has(s));
  if (!missing.length || (!stages.length && !only.has('bridge'))) return null;
  const running = [...(only.has('bridge') ? ['bridge'] : []), ...stages].join(', ');
  return `--only: ${running} without the stage${missing.length > 1 ? 's' : ''} ${missing.join(', ')} on the in-process transport (KAFKA_BROKERS unset): `
    + 'the records would have no reader in this process and be lost; run the bridge with the whole pipeline (--only bridge,pipeline) or set KAFKA_BROKERS to run them in separate processes';
}

/** Whether this process runs component `c`: the `--only` list, else everything but the simulator off the embedded default. */
export function wantedComponents(only: Set<Component> | null, runtime: Pick<Runtime, 'embedded' | 'settings'>): (c: Component) => boolean {
  return (c) => (only ? only.has(c) : c !== 'simulate' || (runtime.embedded && runtime.settings.embeddedExtras.simulate));
}

/**
 * The database line, the demo data and its OMS (embedded default), and a warning while a demo password still
 * works or the embedded default's generated secrets face a network.
 */
async function startDatabaseAndDemo(runtime: Runtime): Promise<string[]> {
  const { settings, pool } = runtime;
  const started = [runtime.embedded
    ? `embedded PostgreSQL (${settings.dataDir}/postgres on 127.0.0.1:${settings.embeddedPgPort}, loopback only; superuser password in ${embeddedPasswordFile(settings.dataDir)}, mode 0600)`
    : 'PostgreSQL (DATABASE_URL)'];
  if (runtime.embedded && settings.embeddedExtras.demoData) {
    const demo = await loadDemoData(runtime);
    started.push(`demo data (${demo.summary})`);
    if (settings.embeddedExtras.demoOms && demo.omsEndpoints.length) {
      const oms = await startDemoOms(demo.omsEndpoints);
      runtime.onClose(oms.close);
      if (oms.serving.length) started.push(`demo OMS for ${oms.serving.map((e) => `${e.integration} (${e.endpoint})`).join(', ')}`);
    }
  }
  const demoLogins = await demoPasswordsInUse(pool);
  if (demoLogins.length) {
    const warning = `WARNING: the published demo password still logs in as ${demoLogins.join(', ')} (schemas/config/demo-data.json); change it (faultline import with a new password) or remove the user before anyone else can reach this service`;
    log.warn({ users: demoLogins }, 'demo passwords still work');
    started.push(warning);
  }
  const generated = generatedSecretsWarning(runtime.embedded, settings);
  if (generated) {
    log.warn({ host: settings.httpHost }, 'the embedded default is on a network with its generated secrets');
    started.push(generated);
  }
  return started;
}

/** The stages this process runs (whole segments of the pipeline's shape). */
async function startStages(runtime: Runtime, drain: Drain, transport: Transport, stages: StageName[]): Promise<string> {
  const { settings, pool } = runtime;
  const pipeline = await startPipeline({ transport, pool, modelMap: settings.modelMap, lowCurrentA: settings.lowCurrentA, notify: settings.notify, split: settings.pipelineSplit, stages, maxRecordAttempts: settings.maxRecordAttempts });
  drain.onStop('pipeline', () => pipeline.stop());
  exposeConsumerLag(pipeline.subscriptions);
  return `pipeline: ${[...pipeline.subscriptions.keys()].join(', ')} (${settings.pipelineSplit.length ? `PIPELINE_SPLIT=${settings.pipelineSplit.join(',')}` : 'chained'})`;
}

/** The bridge from the device-message queue (SQS or the spool inbox) to the pipeline. */
async function startBridge(runtime: Runtime, drain: Drain, transport: Transport): Promise<{ source: Source; line: string }> {
  const { queue, bridge } = runtime.settings;
  if (queue.kind === 'spool') mkdirSync(queue.dir, { recursive: true });
  const { kind, source } = sourceFromSettings({ transport, queue, bridge, log: (level, message, extra) => log[level]({ ...extra, component: 'bridge' }, message) });
  await source.start();
  exposeSourceStats(kind, source);
  drain.onStop('bridge', () => source.stop());
  return { source, line: queue.kind === 'sqs' ? `SQS bridge (${queue.queueUrl})` : `spool inbox (${queue.dir}: drop *.json queue messages here)` };
}

/** The workers on the database: MultiSpeak delivery, feeder incidents, alarms, fleet health (each only when wanted). */
function startWorkers(runtime: Runtime, drain: Drain, wants: (c: Component) => boolean): string[] {
  const { settings, pool } = runtime;
  const started: string[] = [];
  if (wants('delivery')) {
    // Without a keyring the worker still runs: integrations without credentials deliver, the others wait, visibly.
    const worker = startDeliveryWorker({ pool, keyring: runtime.keyring().keyring });
    drain.onStop('delivery', () => worker.stop());
    started.push('MultiSpeak delivery worker (outbox -> OMS)');
  }
  if (wants('incidents')) {
    const incidents = startIncidentWorker({ pool, windowMs: settings.incidentWindowMs, offlineAfterHours: settings.offlineAfterHours, checkinFloorS: settings.alarms.checkinFloorS });
    drain.onStop('incidents', () => incidents.stop());
    started.push(`incident worker (fault events -> feeder incidents, window ${settings.incidentWindowMs / 1000} s)`);
  }
  if (wants('fleet')) {
    const fleet = startFleetWorker({ pool, tickMs: settings.fleetTickMs, steps: fleetSteps({ checkinFloorS: settings.alarms.checkinFloorS, offlineAfterHours: settings.offlineAfterHours, silenceLagBoundS: settings.silenceLagBoundS }) });
    drain.onStop('fleet', () => fleet.stop());
    started.push(`fleet worker (device health, every ${settings.fleetTickMs / 60_000} min)`);
  }
  if (wants('alarms')) {
    const alarms = startAlarms({ pool, settings, keyring: runtime.keyring().keyring, fleetSummary: organisationFleetSummary });
    drain.onStop('alarms', () => alarms.stop());
    started.push('alarm router, communication-lost clock and alarm delivery (e-mail, SMS, webhooks)');
  }
  return started;
}

/** The DNP3 outstation, or the start-up line that says why it is off (an error when `--only dnp3` asked for it). */
async function startOutstation(runtime: Runtime, drain: Drain, only: Set<Component> | null): Promise<string> {
  const off = dnp3Unconfigured(runtime.embedded, runtime.settings);
  if (off) {
    if (only?.has('dnp3')) throw new Error(`--only dnp3: the DNP3 outstation is ${off}`);
    return `DNP3 outstation ${off}`;
  }
  const outstation = await startDnp3(runtime);
  drain.onStop('dnp3', () => outstation.close());
  return outstation.description;
}

/** The IEC 104 station opens its port only when an enabled iec104 integration exists (cli/iec104.ts). */
async function startStation104(runtime: Runtime, drain: Drain, only: Set<Component> | null): Promise<string> {
  const station = await startIec104(runtime, only?.has('iec104') ?? false);
  if (station.close) drain.onStop('iec104', station.close);
  return station.description;
}

/**
 * Every component this process runs, one start step each (Drain.step: none begins once a signal came; each has
 * its seam `start.*`, config/failpoints.ts). Returns the start-up list.
 */
async function startComponents(only: Set<Component> | null, drain: Drain, settings: Settings): Promise<string[]> {
  const { runtime, started } = await drain.step('start.database', async () => {
    const runtime = await openRuntime({ exclusive: true, schema: 'start', settings });
    drain.attach(runtime);
    const started = await startDatabaseAndDemo(runtime);
    // Partitions ahead, strays out of the default partitions, retention: at start and daily, in every process
    // (one at a time does retention).
    const storage = startStorageMaintenance({ pool: runtime.pool, archiveDir: settings.archiveDir, granularity: settings.partitionGranularity });
    drain.onStop('storage maintenance', () => storage.stop());
    started.push(`storage maintenance (partitions ahead cut by ${settings.partitionGranularity}, retention daily; archive ${settings.archiveDir})`);
    return { runtime, started };
  });
  const wants = wantedComponents(only, runtime);

  const transport = await drain.step('start.transport', async () => {
    const transport = await transportFromSettings(settings);
    runtime.onClose(() => transport.close());
    started.push(transport.kind === 'kafka' ? `Kafka transport (${settings.kafkaBrokers!.join(',')}, registry ${settings.schemaRegistryUrl})` : 'in-process transport');
    return transport;
  });

  const stages = STAGE_NAMES.filter((s: StageName) => wants(s));
  if (stages.length) started.push(await drain.step('start.pipeline', () => startStages(runtime, drain, transport, stages)));
  let bridgeSource: Source | null = null;
  if (wants('bridge')) {
    const bridge = await drain.step('start.bridge', () => startBridge(runtime, drain, transport));
    bridgeSource = bridge.source;
    started.push(bridge.line);
  }
  if (wants('api')) started.push(...await drain.step('start.api', () => startApi(runtime, drain, { transport, bridgeSource })));
  started.push(...await drain.step('start.workers', () => startWorkers(runtime, drain, wants)));
  if (wants('dnp3')) started.push(await drain.step('start.dnp3', () => startOutstation(runtime, drain, only)));
  if (wants('iec104')) started.push(await drain.step('start.iec104', () => startStation104(runtime, drain, only)));
  if (wants('simulate')) {
    await drain.step('start.simulate', async () => runtime.onClose(await startSimulation(runtime)));
    started.push('device simulator (SIMULATE=0 turns it off)');
  }
  return started;
}

export async function start({ only }: { only: Set<Component> | null }): Promise<void> {
  // The signals first (docs/decisions.md#signals-during-start-up-and-the-test-runners-guards): a SIGTERM at
  // any later line drains what has started.
  const settings = loadSettings();
  const refusal = inProcessOnlyRefusal(only, settings.kafkaBrokers !== null);
  if (refusal) throw new Error(refusal);
  const drain = ownSignals(settings);
  let started: string[];
  try {
    started = await startComponents(only, drain, settings);
  } catch (err) {
    // Draining: a step not begun (StartInterrupted) or one that failed as it was stopped; the drain exits.
    if (drain.draining) return;
    throw err;
  }
  if (drain.draining) return;
  log.info({ started }, 'faultline started');
  process.stdout.write(`faultline is running:\n${started.map((s) => `  - ${s}`).join('\n')}\nCtrl-C stops it.\n`);
}
