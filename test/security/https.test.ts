// HTTPS on the API (issue 18 point 4): with HTTP_TLS_CERT/HTTP_TLS_KEY the API serves TLS 1.2+ only; a client
// that verifies the certificate (the dev CA from infra/certs.sh) gets /healthz; TLS 1.0 and 1.1 are refused;
// a certificate written over the old files is served to the next handshake without a restart.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { Hono } from 'hono';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listen, type Listening } from '../../api/server.js';
import { reportTally } from '../helpers/tally.js';
import { devCerts, type DevCerts } from '../helpers/dev-certs.js';

let certs: DevCerts;
const live = mkdtempSync(join(tmpdir(), 'faultline-https-live-'));
let server: Listening;
let refused = 0;

test.before(async () => {
  certs = devCerts('faultline-https-');
  copyFileSync(certs.pem('outstation.test'), join(live, 'cert.pem'));
  copyFileSync(certs.pem('outstation.test-key'), join(live, 'key.pem'));
  const app = new Hono().get('/healthz', (c) => c.json({ status: 'ok' }));
  server = await listen(app, { port: 0, hostname: '127.0.0.1', tls: { certFile: join(live, 'cert.pem'), keyFile: join(live, 'key.pem') } });
});

test.after(async () => {
  await server?.close();
  reportTally('security/https', { attacksTried: 2, attacksRefused: refused });
  certs?.remove();
  rmSync(live, { recursive: true, force: true });
});

function get(ca: Buffer): Promise<{ status: number; protocol: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: '/healthz', ca, servername: 'localhost', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, protocol: (res.socket as TLSSocket).getProtocol() ?? '' }));
    });
    req.on('error', reject);
    req.end();
  });
}

function handshake(options: { maxVersion?: 'TLSv1' | 'TLSv1.1'; ca?: Buffer }): Promise<{ ok: boolean; issuer?: string; error?: string }> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port: server.port, servername: 'localhost', rejectUnauthorized: false, minVersion: 'TLSv1', ...options });
    s.on('secureConnect', () => { const cn = s.getPeerCertificate().issuer?.CN; const issuer = Array.isArray(cn) ? cn[0] : cn; s.end(); resolve({ ok: true, issuer }); });
    s.on('error', (err) => resolve({ ok: false, error: err.message }));
  });
}

test('a client that verifies the certificate gets /healthz over TLS 1.3', async () => {
  const { status, protocol } = await get(readFileSync(certs.pem('ca')));
  assert.is(status, 200);
  assert.is(protocol, 'TLSv1.3');
  assert.is(server.protocol, 'https');
});

test('a client that trusts another CA refuses the server (the check can fail)', async () => {
  await get(readFileSync(certs.pem('rogue-ca'))).then(() => assert.unreachable('must not verify'), (err: Error) => assert.match(err.message, /self.signed|unable to verify|certificate/i));
});

test('TLS 1.0 and 1.1 are refused', async () => {
  for (const maxVersion of ['TLSv1', 'TLSv1.1'] as const) {
    const r = await handshake({ maxVersion });
    assert.not.ok(r.ok, `${maxVersion} refused`);
    if (!r.ok) refused++;
  }
});

test('a certificate written over the files is served to the next handshake without a restart', async () => {
  assert.is((await handshake({})).issuer, 'faultline dev ca');
  // rogue.example is signed by the other CA: after the swap, new handshakes present it.
  copyFileSync(certs.pem('rogue.example'), join(live, 'cert.pem'));
  copyFileSync(certs.pem('rogue.example-key'), join(live, 'key.pem'));
  let issuer: string | undefined;
  for (let i = 0; i < 40 && issuer !== 'faultline dev rogue-ca'; i++) { await sleep(100); issuer = (await handshake({})).issuer; }
  assert.is(issuer, 'faultline dev rogue-ca');
});

test.run();
