// The development certificates of infra/certs.sh (a CA, the outstation's pair, a SCADA master pair per demo
// organisation, and the rogue ones the attack suites present), made in a temporary folder for a suite that
// speaks TLS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DevCerts {
  dir: string;
  /** The path of `<name>.pem`, e.g. 'ca', 'outstation.test-key', 'scada.north.example'. */
  pem(name: string): string;
  /** The outstation's key and certificate and the masters' CA (startDnp3Service tlsFiles, DNP3_TLS_*). */
  outstation: { key: string; cert: string; ca: string };
  /** A demo organisation's SCADA master (Yadnp3Master): the CA, its certificate and key. */
  master(org: string): { ca: string; cert: string; key: string };
  remove(): void;
}

export function devCerts(prefix: string): DevCerts {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  execFileSync('bash', [new URL('../../infra/certs.sh', import.meta.url).pathname], { env: { ...process.env, CERTS_DIR: dir }, stdio: 'ignore' });
  const pem = (name: string) => join(dir, `${name}.pem`);
  return {
    dir, pem,
    outstation: { key: pem('outstation.test-key'), cert: pem('outstation.test'), ca: pem('ca') },
    master: (org) => ({ ca: pem('ca'), cert: pem(`scada.${org}.example`), key: pem(`scada.${org}.example-key`) }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
