// Mutual TLS: the certificate decides the organisation, before any DNP3 octet. Certificates come from
// infra/certs.sh (openssl) in a temporary directory.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { connect } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import { startDnp3Server } from '../../../dnp3/server.js';
import type { Dnp3Server } from '../../../dnp3/server.js';
import { hex, toHex } from '../helpers/hex.js';
import { fragments } from '../conformance/harness.js';
import { twoOrganisations } from '../helpers/two-organisations.js';

const { dir, pem, integrations, outstations } = twoOrganisations('dnp3-certs-', { north: 'TLSv1.3', south: 'TLSv1.2' });
const refusals: string[] = [];
let server: Dnp3Server;

// Class 0 read from master 1 to outstation 10.
const CLASS0 = hex('05 64 0B C4 0A 00 01 00 AC D1 C0 C0 01 3C 01 06 FF 50');

interface Exchange { received: Uint8Array; error?: string }

function exchange(client: Partial<ConnectionOptions>, port = server.port): Promise<Exchange> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const socket = connect({ host: '127.0.0.1', port, ca: pem('ca'), servername: 'outstation.test', ...client });
    const done = () => { clearTimeout(timer); socket.destroy(); resolve({ received: new Uint8Array(Buffer.concat(chunks)), ...(error ? { error } : {}) }); };
    const timer = setTimeout(done, 1500);
    socket.on('secureConnect', () => socket.write(CLASS0));
    socket.on('data', (c: Buffer) => { chunks.push(c); if (Buffer.concat(chunks).length >= 21) done(); });
    socket.on('error', (e) => { error = e.message; });
    socket.on('close', done);
  });
}

test.before(async () => {
  server = await startDnp3Server({
    port: 0,
    host: '127.0.0.1',
    transport: { tls: { key: pem('outstation.test-key'), cert: pem('outstation.test'), ca: [pem('ca')] } },
    integrations: () => integrations,
    outstationsFor: (i) => [outstations.get(i.organizationId)!],
    onRefused: (reason) => refusals.push(reason),
  });
});

test.after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('north master gets north points only (analog 0 = 111.0)', async () => {
  const r = await exchange({ cert: pem('scada.north.example'), key: pem('scada.north.example-key') });
  assert.is(r.error, undefined);
  assert.equal(fragments([r.received]), ['C0 81 90 00 1E 05 00 00 00 01 00 00 DE 42']); // 111.0f = 0x42DE0000
});

test('south master gets south points only (analog 0 = 222.0), over TLS 1.2 as its integration allows', async () => {
  const r = await exchange({ cert: pem('scada.south.example'), key: pem('scada.south.example-key'), maxVersion: 'TLSv1.2' });
  assert.equal(fragments([r.received]), ['C0 81 90 00 1E 05 00 00 00 01 00 00 5E 43']); // 222.0f = 0x435E0000
});

test('no client certificate: refused, not a single DNP3 octet', async () => {
  const r = await exchange({});
  assert.is(toHex(r.received), '');
});

test('certificate naming north but signed by another CA: refused in the handshake', async () => {
  const r = await exchange({ cert: pem('rogue.example'), key: pem('rogue.example-key') });
  assert.is(toHex(r.received), '');
  assert.ok(refusals.includes('handshake') || refusals.includes('noCertificate'));
});

test('north certificate over TLS 1.2 while north requires 1.3: refused after the handshake, no octet', async () => {
  const r = await exchange({ cert: pem('scada.north.example'), key: pem('scada.north.example-key'), maxVersion: 'TLSv1.2' });
  assert.is(toHex(r.received), '');
  assert.ok(refusals.includes('tlsVersion'));
});

test('a valid certificate of an organisation with no DNP3 integration: refused, no octet', async () => {
  const only = integrations.splice(1, 1);
  try {
    const r = await exchange({ cert: pem('scada.south.example'), key: pem('scada.south.example-key') });
    assert.is(toHex(r.received), '');
    assert.ok(refusals.includes('unknownIdentity'));
  } finally {
    integrations.push(...only);
  }
});

test("two trusted CAs: a certificate from the other organisation's CA carrying north's identity is refused", async () => {
  // South brings its own CA (rogue-ca here); north trusts only the service CA. The handshake accepts both
  // CAs, so the issuer check is what stops south's CA from minting "scada.north.example".
  const trusting = integrations.map((i) => ({ ...i, issuerCas: [new X509Certificate(pem(i.organizationId === 'north' ? 'ca' : 'rogue-ca'))] }));
  const both = await startDnp3Server({
    port: 0, host: '127.0.0.1',
    transport: { tls: { key: pem('outstation.test-key'), cert: pem('outstation.test'), ca: [pem('ca')] } },
    integrations: () => trusting,
    outstationsFor: (i) => [outstations.get(i.organizationId)!],
    onRefused: (reason) => refusals.push(reason),
  });
  try {
    const rogue = await exchange({ cert: pem('rogue.example'), key: pem('rogue.example-key') }, both.port);
    assert.is(toHex(rogue.received), '');
    assert.ok(refusals.includes('wrongIssuer'));
    const north = await exchange({ cert: pem('scada.north.example'), key: pem('scada.north.example-key') }, both.port);
    assert.equal(fragments([north.received]), ['C0 81 90 00 1E 05 00 00 00 01 00 00 DE 42']);
  } finally {
    await both.close();
  }
});

test.run();
