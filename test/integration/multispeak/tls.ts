// A throwaway CA and a server certificate for 127.0.0.1 (openssl from the OS), for the untrusted-certificate
// case of the delivery faults suite.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCerts { dir: string; ca: string; cert: string; key: string }

export function makeCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'fl-oms-tls-'));
  const p = (f: string) => join(dir, f);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.pem'), '-days', '2', '-subj', '/CN=faultline test OMS CA');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('server.key'), '-out', p('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(p('ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  ssl('x509', '-req', '-in', p('server.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('server.pem'), '-days', '2', '-extfile', p('ext.cnf'));
  return { dir, ca: p('ca.pem'), cert: p('server.pem'), key: p('server.key') };
}
