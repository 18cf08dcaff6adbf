// The DNP3 outstation component of `faultline start`. With DNP3_TLS_KEY/CERT/CA it serves mutual TLS on
// DNP3_PORT (default 20000). On the embedded default, development certificates are generated once into
// $DATA_DIR/certs (infra/certs.sh, openssl), so a master can connect with the fixture client certificates.
// DNP3_PLAIN_INTEGRATION=<integration id> serves plain TCP for that one integration (development only).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { log } from '../config/log.js';
import { startDnp3Service } from '../dnp3/service.js';
import type { Runtime } from './runtime.js';

export function dnp3Configured(runtime: Runtime, env = process.env): boolean {
  return runtime.embedded || Boolean(env.DNP3_TLS_CERT || env.DNP3_PLAIN_INTEGRATION);
}

function tlsFiles(runtime: Runtime, env: NodeJS.ProcessEnv): { key: string; cert: string; ca: string } | undefined {
  if (env.DNP3_TLS_KEY && env.DNP3_TLS_CERT && env.DNP3_TLS_CA) return { key: env.DNP3_TLS_KEY, cert: env.DNP3_TLS_CERT, ca: env.DNP3_TLS_CA };
  if (!runtime.embedded || env.DNP3_PLAIN_INTEGRATION) return undefined;
  const dir = join(runtime.settings.dataDir, 'certs');
  execFileSync('bash', [new URL('../infra/certs.sh', import.meta.url).pathname], { env: { ...env, CERTS_DIR: dir }, stdio: 'ignore' });
  return { key: join(dir, 'outstation.test-key.pem'), cert: join(dir, 'outstation.test.pem'), ca: join(dir, 'ca.pem') };
}

export async function startDnp3(runtime: Runtime, env = process.env): Promise<{ description: string; close(): Promise<void> }> {
  const port = env.DNP3_PORT ? Number(env.DNP3_PORT) : 20000;
  const files = tlsFiles(runtime, env);
  const service = await startDnp3Service({
    pool: runtime.pool, port, offlineAfterHours: runtime.settings.offlineAfterHours,
    ...(files ? { tlsFiles: files } : {}),
    ...(env.DNP3_PLAIN_INTEGRATION ? { plainIntegrationId: env.DNP3_PLAIN_INTEGRATION } : {}),
    onError: (err) => log.warn({ component: 'dnp3', err: (err as Error).message }, 'outstation error'),
  });
  const mode = files ? `mutual TLS, CA ${files.ca}` : `plain TCP for ${env.DNP3_PLAIN_INTEGRATION} (development only)`;
  return { description: `DNP3 outstation on TCP ${port} (${mode})`, close: () => service.close() };
}
