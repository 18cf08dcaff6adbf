// The TLS files both SCADA master listeners serve (DNP3 and IEC 104, integrations/master-listener.ts), read once in
// config/settings.ts (scadaTls: DNP3_TLS_KEY/CERT/CA). On the embedded default, development certificates are
// generated once into $DATA_DIR/certs (infra/certs.sh, openssl), so a master can connect with the fixture client
// certificates.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { childEnvironment } from '../config/child-environment.js';
import type { ScadaTlsFiles, Settings } from '../config/settings.js';
import type { Runtime } from './runtime.js';

/** Why mutual TLS cannot be served, or null when it can (configured, or the embedded default's development certificates). */
export function scadaTlsUnconfigured(embedded: boolean, settings: Pick<Settings, 'scadaTls'>): string | null {
  if (embedded || settings.scadaTls) return null;
  return 'DNP3_TLS_KEY, DNP3_TLS_CERT, DNP3_TLS_CA are not set (mutual TLS needs the service\'s SCADA key and certificate and the masters\' CA)';
}

/** The files to serve: the configured ones, else on the embedded default the development certificates. */
export function scadaTlsFiles(runtime: Runtime): ScadaTlsFiles | undefined {
  if (runtime.settings.scadaTls) return runtime.settings.scadaTls;
  if (!runtime.embedded) return undefined;
  const dir = join(runtime.settings.dataDir, 'certs');
  execFileSync('bash', [new URL('../infra/certs.sh', import.meta.url).pathname], { env: childEnvironment({ CERTS_DIR: dir }), stdio: 'ignore' });
  return { key: join(dir, 'outstation.test-key.pem'), cert: join(dir, 'outstation.test.pem'), ca: join(dir, 'ca.pem') };
}
