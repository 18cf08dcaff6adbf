// The DNP3 outstation component of `faultline start`. With DNP3_TLS_KEY/CERT/CA it serves mutual TLS on
// DNP3_PORT (default 20000). On the embedded default, development certificates are generated once into
// $DATA_DIR/certs (infra/certs.sh, openssl), so a master can connect with the fixture client certificates.
// DNP3_PLAIN_INTEGRATION=<integration id> serves plain TCP for that one integration (development only).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { childEnvironment } from '../config/child-environment.js';
import { log } from '../config/log.js';
import type { Dnp3Settings } from '../config/settings.js';
import { startDnp3Service } from '../dnp3/service.js';
import { whereListening } from './listening.js';
import type { Runtime } from './runtime.js';

/**
 * Why the outstation cannot start, or null when it can: outside the embedded default it needs its certificate,
 * key and CA (mutual TLS), or DNP3_PLAIN_INTEGRATION for development. (Half a TLS configuration is refused
 * when the settings are read: config/settings.ts.)
 */
export function dnp3Unconfigured(embedded: boolean, dnp3: Dnp3Settings): string | null {
  if (embedded || dnp3.tls || dnp3.plainIntegration) return null;
  return 'off: DNP3_TLS_KEY, DNP3_TLS_CERT, DNP3_TLS_CA are not set (mutual TLS needs the outstation\'s key and certificate and the masters\' CA)';
}

export function tlsFiles(runtime: Runtime): { key: string; cert: string; ca: string } | undefined {
  const { tls, plainIntegration } = runtime.settings.dnp3;
  if (tls) return tls;
  if (!runtime.embedded || plainIntegration) return undefined;
  const dir = join(runtime.settings.dataDir, 'certs');
  execFileSync('bash', [new URL('../infra/certs.sh', import.meta.url).pathname], { env: childEnvironment({ CERTS_DIR: dir }), stdio: 'ignore' });
  return { key: join(dir, 'outstation.test-key.pem'), cert: join(dir, 'outstation.test.pem'), ca: join(dir, 'ca.pem') };
}

export async function startDnp3(runtime: Runtime): Promise<{ description: string; close(): Promise<void> }> {
  const { port, plainIntegration } = runtime.settings.dnp3;
  const files = tlsFiles(runtime);
  const service = await startDnp3Service({
    pool: runtime.pool, port, host: runtime.settings.httpHost, offlineAfterHours: runtime.settings.offlineAfterHours, checkinFloorS: runtime.settings.alarms.checkinFloorS,
    ...(files ? { tlsFiles: files } : {}),
    ...(plainIntegration ? { plainIntegrationId: plainIntegration } : {}),
    onError: (err) => log.warn({ component: 'dnp3', err: (err as Error).message }, 'outstation error'),
  });
  const mode = files ? `mutual TLS, CA ${files.ca}` : `plain TCP for ${plainIntegration} (development only)`;
  return { description: `DNP3 outstation on TCP ${whereListening(runtime.settings.httpHost, service.server.port)} (${mode})`, close: () => service.close() };
}
