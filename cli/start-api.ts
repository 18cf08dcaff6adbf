// The `api` component of `faultline start`: the HTTP API (and portal) on PORT, /metrics and /openapi.json on
// METRICS_PORT when set, and the clearer of due test faults. Every setting comes from Runtime.settings.
import { log } from '../config/log.js';
import { createApp } from '../api/app.js';
import { resolveJwtSecret } from '../api/auth/jwt-secret.js';
import { clientAddressBehind } from '../api/client-address.js';
import { loadCodeStrings } from '../api/device-records/code-strings-file.js';
import { openApiDocument } from '../api/openapi/document.js';
import { createOpsApp } from '../api/ops-routes.js';
import type { ReadinessCheck } from '../api/health/routes.js';
import { listen } from '../api/server.js';
import { openQueue } from '../commissioning/queue.js';
import { startClearer } from '../commissioning/test-faults.js';
import { databaseReady } from '../db/pool.js';
import { TOPICS } from '../schemas/avro/topics.js';
import type { Source } from '../stages/bridge/source.js';
import { registryReady } from '../stages/runtime/transport/from-settings.js';
import type { Transport } from '../stages/runtime/transport/transport.js';
import type { Drain } from './drain.js';
import { whereListening } from './listening.js';
import type { Runtime } from './runtime.js';

/** Every dependency this process talks to: an outage of any of them turns /readyz to 503 and names it. */
function readinessChecks(runtime: Runtime, transport: Transport, bridgeSource: Source | null): Record<string, ReadinessCheck> {
  const { settings, pool } = runtime;
  return {
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
  };
}

/** Starts the API; returns its lines of the start-up list. */
export async function startApi(runtime: Runtime, drain: Drain, { transport, bridgeSource }: { transport: Transport; bridgeSource: Source | null }): Promise<string[]> {
  const { settings, pool } = runtime;
  const started: string[] = [];
  // Test faults go to the queue the bridge reads; this process clears the ones that are due.
  const testFaultQueue = openQueue(settings.queue);
  const clearer = startClearer(pool, testFaultQueue);
  runtime.onClose(async () => { await clearer.stop(); await testFaultQueue.close(); });
  const codeStrings = loadCodeStrings(settings.codeStringsFile);
  const app = createApp({
    readiness: readinessChecks(runtime, transport, bridgeSource),
    pool, jwtSecret: resolveJwtSecret({ configured: settings.jwtSecret, dataDir: settings.dataDir }), codeStrings,
    offlineAfterHours: settings.offlineAfterHours, checkinFloorS: settings.alarms.checkinFloorS,
    clientAddress: clientAddressBehind(settings.trustProxy), draining: () => drain.draining, opsRoutes: settings.metricsPort === null,
    alarms: { keyring: runtime.keyring().keyring, webhookAllow: settings.alarms.webhookAllow, chatterShelveMaxMinutes: settings.alarms.chatterShelveMaxMinutes },
    testFaults: { queue: testFaultQueue, clearAfterMs: settings.testFaultClearMs }, mapTiles: settings.mapTiles,
    dnp3Port: settings.dnp3.port, iec104Port: settings.iec104Port,
  });
  const server = await listen(app, { port: settings.httpPort, hostname: settings.httpHost, tls: settings.httpTls });
  drain.onStopLast(() => server.close());
  if (settings.metricsPort !== null) {
    // /metrics and /openapi.json off the public port (api/ops-routes.ts): plain HTTP, for a firewalled network.
    const ops = await listen(createOpsApp(openApiDocument({ codeStrings })), { port: settings.metricsPort, hostname: settings.httpHost });
    drain.onStopLast(() => ops.close());
    started.push(`/metrics and /openapi.json on http://${whereListening(settings.httpHost, ops.port)} (METRICS_PORT), not on the public port`);
  }
  // SIGHUP reads the certificate and key again (a change to either file does too).
  if (settings.httpTls) process.on('SIGHUP', () => { try { server.reloadCertificate(); log.info('HTTPS certificate reloaded'); } catch (err) { log.error({ err: (err as Error).message }, 'HTTPS certificate reload failed; the old one stays'); } });
  started.push(`API on ${server.protocol}://${whereListening(settings.httpHost, server.port)} (/healthz, /readyz${settings.metricsPort === null ? ', /metrics' : ''})${settings.httpTls ? ' (TLS 1.2+, certificate reloaded on change or SIGHUP)' : ''}`);
  return started;
}
