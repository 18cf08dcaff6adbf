// The DNP3 outstation component of `faultline start`. With DNP3_TLS_KEY/CERT/CA it serves mutual TLS on
// DNP3_PORT (default 20000). On the embedded default, development certificates are generated once into
// $DATA_DIR/certs (infra/certs.sh, openssl), so a master can connect with the fixture client certificates.
// DNP3_PLAIN_INTEGRATION=<integration id> serves plain TCP for that one integration (development only).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { log } from '../config/log.js';
import { dnp3Port } from '../dnp3/port.js';
import { startDnp3Service } from '../dnp3/service.js';
import { whereListening } from './listening.js';
import type { Runtime } from './runtime.js';

const TLS_VARIABLES = ['DNP3_TLS_KEY', 'DNP3_TLS_CERT', 'DNP3_TLS_CA'] as const;

/**
 * Why the outstation cannot start, or null when it can: outside the embedded default it needs its certificate,
 * key and CA (mutual TLS), or DNP3_PLAIN_INTEGRATION for development. Half a TLS configuration is an error, not
 * a silent "off".
 */
export function dnp3Unconfigured(embedded: boolean, env: NodeJS.ProcessEnv = process.env): string | null {
  const set = TLS_VARIABLES.filter((v) => env[v]);
  if (set.length > 0 && set.length < TLS_VARIABLES.length) {
    throw new Error(`DNP3 outstation: ${TLS_VARIABLES.filter((v) => !env[v]).join(' and ')} missing (mutual TLS needs ${TLS_VARIABLES.join(', ')} together)`);
  }
  if (embedded || set.length === TLS_VARIABLES.length || env.DNP3_PLAIN_INTEGRATION) return null;
  return `off: ${TLS_VARIABLES.join(', ')} are not set (mutual TLS needs the outstation's key and certificate and the masters' CA)`;
}

export function tlsFiles(runtime: Runtime, env: NodeJS.ProcessEnv): { key: string; cert: string; ca: string } | undefined {
  if (env.DNP3_TLS_KEY && env.DNP3_TLS_CERT && env.DNP3_TLS_CA) return { key: env.DNP3_TLS_KEY, cert: env.DNP3_TLS_CERT, ca: env.DNP3_TLS_CA };
  if (!runtime.embedded || env.DNP3_PLAIN_INTEGRATION) return undefined;
  const dir = join(runtime.settings.dataDir, 'certs');
  execFileSync('bash', [new URL('../infra/certs.sh', import.meta.url).pathname], { env: { ...env, CERTS_DIR: dir }, stdio: 'ignore' });
  return { key: join(dir, 'outstation.test-key.pem'), cert: join(dir, 'outstation.test.pem'), ca: join(dir, 'ca.pem') };
}

export async function startDnp3(runtime: Runtime, env = process.env): Promise<{ description: string; close(): Promise<void> }> {
  const port = dnp3Port(env);
  const files = tlsFiles(runtime, env);
  const service = await startDnp3Service({
    pool: runtime.pool, port, host: runtime.settings.httpHost, offlineAfterHours: runtime.settings.offlineAfterHours, checkinFloorS: runtime.settings.alarms.checkinFloorS,
    ...(files ? { tlsFiles: files } : {}),
    ...(env.DNP3_PLAIN_INTEGRATION ? { plainIntegrationId: env.DNP3_PLAIN_INTEGRATION } : {}),
    onError: (err) => log.warn({ component: 'dnp3', err: (err as Error).message }, 'outstation error'),
  });
  const mode = files ? `mutual TLS, CA ${files.ca}` : `plain TCP for ${env.DNP3_PLAIN_INTEGRATION} (development only)`;
  return { description: `DNP3 outstation on TCP ${whereListening(runtime.settings.httpHost, service.server.port)} (${mode})`, close: () => service.close() };
}
