// DNP3 protocol attacks (issue 7, part 5) on the real outstation server (dnp3/server.ts) over mutual TLS with
// certificates from infra/certs.sh: no client certificate, an expired one, one from a foreign CA, garbage
// and plain DNP3 before the TLS handshake, connections that never finish a handshake, and a frame flood from
// an authenticated master. Each attacker gets not one DNP3 octet (or, for the flood, no harm done), and a
// legitimate master is answered during and after every attack. The hostile tenant of issue 41 attacks the
// running service (startDnp3Service, integrations in Postgres): its CA's leaf naming another organisation's
// master, alone and with a forged chain (test/helpers/forged-chain.ts); a TLS session offered again without a
// certificate; its own real master known at eight addresses holding silent connections; a refusal flood (every one
// counted, few log lines); a claim on another organisation's master by pin or by that master's public CA
// (docs/decisions.md#scada-listener-slots-sessions-and-claims), also through its certificate's second SAN. A master under an intermediate CA is served as the docs say.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import { startDnp3Server, type Dnp3Server } from '../../dnp3/server.js';
import { startDnp3Service } from '../../dnp3/service.js';
import { log } from '../../config/log.js';
import { masterMetrics } from '../../integrations/master-metrics.js';
import { formatProblems, ImportError, importReferenceData } from '../../reference-data/index.js';
import type { ListenerRefusal } from '../../integrations/master-listener.js';
import { scadaTenants, type ScadaTenants } from '../helpers/scada-tenants.js';
import { silentConnections } from '../helpers/silent-connections.js';
import { hex, toHex } from '../dnp3/helpers/hex.js';
import { fragments } from '../dnp3/conformance/harness.js';
import { twoOrganisations } from '../dnp3/helpers/two-organisations.js';
import { reportTally } from '../helpers/tally.js';
import { waitFor } from '../../support/wait-for.js';

const { dir, pem, integrations, outstations } = twoOrganisations('dnp3-attack-certs-', { north: 'TLSv1.2', south: 'TLSv1.2' });
// An expired client certificate for north's identity, signed by the trusted CA (OpenSSL 3.0: -days -1).
execFileSync('bash', ['-c', `set -e; cd "${dir}"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=scada.north.example" -keyout expired-key.pem -out expired.csr 2>/dev/null
  printf "subjectAltName=DNS:scada.north.example\\nextendedKeyUsage=clientAuth\\n" > expired.ext
  openssl x509 -req -in expired.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days -1 -extfile expired.ext -out expired.pem 2>/dev/null`]);
writeFileSync(join(dir, 'README'), 'test certificates, removed after the suite');

const refusals: string[] = [];
let server: Dnp3Server;
let tenants: ScadaTenants;
let service: Awaited<ReturnType<typeof startDnp3Service>>;
const serviceRefusals: ListenerRefusal[] = [];
/** Open connections the service cut off on a reload, by the reason their integration no longer admits them. */
const cutOff: ListenerRefusal[] = [];
let tried = 0;
let refused = 0;

const CLASS0 = hex('05 64 0B C4 0A 00 01 00 AC D1 C0 C0 01 3C 01 06 FF 50');
const SOUTH_ANSWER = ['C0 81 90 00 1E 05 00 00 00 01 00 00 5E 43'];

function exchange(client: Partial<ConnectionOptions>, send: Uint8Array = CLASS0, waitMs = 1500, port = server.port): Promise<{ received: Uint8Array; error?: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const socket = connect({ host: '127.0.0.1', port, ca: pem('ca'), servername: 'outstation.test', ...client });
    const done = () => { clearTimeout(timer); socket.destroy(); resolve({ received: new Uint8Array(Buffer.concat(chunks)), ...(error ? { error } : {}) }); };
    const timer = setTimeout(done, waitMs);
    socket.on('secureConnect', () => socket.write(send));
    socket.on('data', (c: Buffer) => { chunks.push(c); if (Buffer.concat(chunks).length >= 21) done(); });
    socket.on('error', (e) => { error = e.message; });
    socket.on('close', done);
  });
}

/** The legitimate master (south) gets its points: the service is up for everyone else. */
async function legitimateServed(when: string): Promise<void> {
  const started = Date.now();
  const r = await exchange({ cert: pem('scada.south.example'), key: pem('scada.south.example-key') }, CLASS0, 5000);
  assert.equal(fragments([r.received]), SOUTH_ANSWER, `the legitimate master is answered ${when}`);
  assert.ok(Date.now() - started < 5000, `answered in ${Date.now() - started} ms ${when}`);
}

async function refusedAttack(label: string, client: Partial<ConnectionOptions>): Promise<void> {
  tried++;
  const r = await exchange(client);
  assert.is(toHex(r.received), '', `${label}: not one DNP3 octet`);
  refused++;
}

/** A raw TCP connection that sends `bytes` instead of a ClientHello; resolves with what came back. */
function raw(bytes: Uint8Array): Promise<{ received: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let closed = false;
    const socket = tcpConnect({ host: '127.0.0.1', port: server.port }, () => socket.write(bytes));
    const done = () => { clearTimeout(timer); socket.destroy(); resolve({ received: Buffer.concat(chunks), closed }); };
    const timer = setTimeout(done, 2000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => { closed = true; done(); });
  });
}

test.before(async () => {
  server = await startDnp3Server({
    port: 0, host: '127.0.0.1',
    transport: { tls: { key: pem('outstation.test-key'), cert: pem('outstation.test'), ca: [pem('ca')] } },
    integrations: () => integrations,
    outstationsFor: (i) => [outstations.get(i.organizationId)!],
    onRefused: (reason) => refusals.push(reason),
  });
  tenants = await scadaTenants('dnp3', 'dnp3-attacks-service');
  service = await startDnp3Service({
    pool: tenants.db.pool, port: 0, host: '127.0.0.1', tlsFiles: tenants.certs.outstation, offlineAfterHours: 26,
    onRefused: (reason, _detail, _named, cut) => { serviceRefusals.push(reason); if (cut) cutOff.push(reason); },
  });
});

test.after(async () => {
  await server?.close();
  await service?.close();
  await tenants?.remove();
  rmSync(dir, { recursive: true, force: true });
  reportTally('dnp3-attacks', { attacksTried: tried, attacksRefused: refused });
});

test("certificates: none, expired, foreign CA, the server's or the CA's own: refused before any DNP3 octet", async () => {
  await refusedAttack('no client certificate', {});
  await refusedAttack('expired certificate', { cert: pem('expired'), key: pem('expired-key') });
  await refusedAttack('foreign CA certificate naming north', { cert: pem('rogue.example'), key: pem('rogue.example-key') });
  await refusedAttack('the outstation\'s own server certificate', { cert: pem('outstation.test'), key: pem('outstation.test-key') });
  await refusedAttack('the CA certificate itself', { cert: pem('ca'), key: pem('ca-key') });
  assert.ok(refusals.length >= 3, `refusals recorded: ${refusals.join(', ')}`);
  await legitimateServed('after the certificate attacks');
});

test("a hostile tenant's CA issues a leaf naming north's master, sent alone and with a forged chain up to north's CA: refused wrongIssuer on the running service", async () => {
  const port = service.server.port;
  const { forged } = tenants;
  const ca = tenantFile('ca'); // this suite's other server has certificates of its own
  // North's own master is served: the refusals below are about the issuer, not the identity.
  const north = await exchange({ ca, cert: tenantFile('scada.north.example'), key: tenantFile('scada.north.example-key') }, CLASS0, 5000, port);
  assert.ok(north.received.length > 0 && north.received[0] === 0x05 && north.received[1] === 0x64, 'north\'s own master is answered');
  const attempts: [string, Partial<ConnectionOptions>][] = [
    ['the leaf alone', { ca, cert: tenantFile('rogue.example'), key: tenantFile('rogue.example-key') }],
    ['the leaf with a forged copy of its CA and north\'s public CA', { ca, cert: readFileSync(forged.chain), key: readFileSync(forged.key) }],
  ];
  for (const [label, client] of attempts) {
    tried++;
    const before = serviceRefusals.filter((r) => r === 'wrongIssuer').length;
    const r = await exchange(client, CLASS0, 3000, port);
    assert.is(toHex(r.received), '', `${label}: not one DNP3 octet`);
    await waitFor(`${label}: refused as wrongIssuer`, () => serviceRefusals.filter((x) => x === 'wrongIssuer').length > before);
    refused++;
  }
});

const tenantFile = (name: string) => readFileSync(tenants.certs.pem(name));

/** A TLS connection to the service that stays open after its first answer; `closed` settles when the service closes it. */
function hold(client: Partial<ConnectionOptions> & { localAddress?: string }, port = service.server.port): Promise<{ answered: boolean; closed: Promise<void>; end(): void }> {
  return new Promise((resolve) => {
    let answered = false;
    const socket = connect({ host: '127.0.0.1', port, ca: tenantFile('ca'), servername: 'outstation.test', ...client });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    const give = () => resolve({ answered, closed, end: () => socket.destroy() });
    const timer = setTimeout(give, 5000);
    socket.on('error', () => {});
    socket.on('secureConnect', () => socket.write(CLASS0));
    socket.once('data', () => { answered = true; clearTimeout(timer); give(); });
    socket.once('close', () => { clearTimeout(timer); give(); });
  });
}

/** `org`'s master's certificate and key, with the service CA to check the outstation. */
const masterTls = (org: 'north' | 'south') => ({ ca: tenantFile('ca'), cert: tenantFile(`scada.${org}.example`), key: tenantFile(`scada.${org}.example-key`) });
/** One connection with `client`'s certificate, closed again: whether the service answered it. */
async function served(client: Partial<ConnectionOptions> & { localAddress?: string }, port?: number): Promise<boolean> {
  const c = await hold(client, port);
  c.end();
  return c.answered;
}

test('silent TCP connections from eight addresses, re-opened as they are cut: a master known to the listener is still served', async () => {
  const northTls = masterTls('north');
  assert.ok(await served(northTls), 'north served before the attack (its address is now a known master\'s)');
  tried++;
  const attack = await silentConnections(service.server.port);
  try {
    assert.ok(await served(northTls), 'north is served while eight addresses hold silent connections');
    refused++;
  } finally {
    attack.stop();
  }
});

test('revocation without a restart: a disabled integration\'s master is cut off and refused (NOTIFY); a changed pin\'s too (SIGHUP)', async () => {
  const northTls = masterTls('north');
  const north = tenants.id('north');
  const pool = tenants.db.pool;
  // Disabled: the statement's NOTIFY reloads the integrations.
  tried++;
  const open = await hold(northTls);
  assert.ok(open.answered, 'north is served');
  await pool.query('update integrations set enabled = false where id = $1', [north]);
  await open.closed;
  assert.equal(cutOff, ['unknownIdentity'], 'cut off because no enabled integration names it any more');
  assert.not.ok(await served(northTls), 'a disabled integration\'s master is refused');
  refused++;
  // Pinned to a certificate file whose content changes on disk: SIGHUP reads it again.
  tried++;
  const pin = join(tenants.certs.dir, 'north-pin.pem');
  writeFileSync(pin, tenantFile('scada.north.example'));
  await pool.query(`update integrations set enabled = true, settings = settings || $2::jsonb where id = $1`, [north, { certificateMode: 'pinned', pinnedCertificateFile: pin }]);
  const pinned = await waitFor('north served under its pin', async () => {
    const c = await hold(northTls);
    if (!c.answered) { c.end(); return undefined; }
    return c;
  });
  // Another certificate naming north's own master (a certificate naming another organisation's is not admitted at
  // all: the swapped-pin test below).
  writeFileSync(pin, tenantFile('rogue.example'));
  process.kill(process.pid, 'SIGHUP');
  await pinned.closed;
  assert.equal(cutOff, ['unknownIdentity', 'pinMismatch'], 'cut off for the changed pin');
  assert.not.ok(await served(northTls), 'a master whose pin changed is refused');
  assert.ok(serviceRefusals.includes('pinMismatch'), serviceRefusals.join());
  refused++;
  await pool.query(`update integrations set settings = settings - 'certificateMode' - 'pinnedCertificateFile' where id = $1`, [north]);
});

test('revocation by deleting a certificate file: the reload still applies (the disabled master and the one whose pin file is gone are cut off and refused), the others load, and a start with the file missing serves the others', async () => {
  const [north, south] = [tenants.id('north'), tenants.id('south')];
  const pool = tenants.db.pool;
  // South pinned to a file of its own (disabled first, so that being served again shows the pin was applied).
  const pin = join(tenants.certs.dir, 'south-pin.pem');
  writeFileSync(pin, tenantFile('scada.south.example'));
  await pool.query('update integrations set enabled = false where id = $1', [south]);
  await waitFor('south refused while disabled', async () => !(await served(masterTls('south'))));
  await pool.query(`update integrations set enabled = true, settings = settings || $2::jsonb where id = $1`, [south, { certificateMode: 'pinned', pinnedCertificateFile: pin }]);
  await waitFor('south served under its pin', () => served(masterTls('south')));
  const northOpen = await hold(masterTls('north'));
  const southOpen = await hold(masterTls('south'));
  assert.ok(northOpen.answered && southOpen.answered, 'both masters connected');
  const closed = { north: false, south: false };
  void northOpen.closed.then(() => { closed.north = true; });
  void southOpen.closed.then(() => { closed.south = true; });
  const cutBefore = cutOff.length;
  // The operator revokes south by deleting its pinned file, then disables north: the round must still apply.
  tried += 2;
  rmSync(pin);
  await pool.query('update integrations set enabled = false where id = $1', [north]);
  await waitFor('the disabled north cut off although south\'s pin file is missing', () => closed.north);
  await waitFor('south cut off: its pin file cannot be read', () => closed.south);
  assert.equal(cutOff.slice(cutBefore), ['unknownIdentity', 'unknownIdentity'], 'both cut off: neither is admitted any more');
  assert.not.ok(await served(masterTls('north')), 'the disabled north is refused');
  assert.not.ok(await served(masterTls('south')), 'south, whose pin file is gone, is refused');
  refused += 2;
  // The others still load while the file is missing: north enabled again is served.
  await pool.query('update integrations set enabled = true where id = $1', [north]);
  await waitFor('north served again while south\'s file is still missing', () => served(masterTls('north')));
  // A start with the file missing: the service comes up for the others.
  const second = await startDnp3Service({ pool, port: 0, host: '127.0.0.1', tlsFiles: tenants.certs.outstation, offlineAfterHours: 26 });
  try {
    assert.ok(await served(masterTls('north'), second.server.port), 'a service started with south\'s file missing serves north');
    assert.not.ok(await served(masterTls('south'), second.server.port), '... and refuses south');
  } finally {
    await second.close();
  }
  // South back on the service CA.
  await pool.query(`update integrations set settings = settings - 'certificateMode' - 'pinnedCertificateFile' where id = $1`, [south]);
  await waitFor('south served again', () => served(masterTls('south')));
});

test('a second integration claiming north\'s master identity with its own CA: north stays connected and served (no ambiguousIdentity); the claimant\'s CA admits only its own leaf, to its own integration', async () => {
  const northTls = masterTls('north');
  const pool = tenants.db.pool;
  const northOpen = await hold(northTls);
  assert.ok(northOpen.answered, 'north is served');
  let northClosed = false;
  void northOpen.closed.then(() => { northClosed = true; });
  const cutBefore = cutOff.length;
  tried++;
  await pool.query(`insert into integrations (id, "OrganizationID", kind, channel, settings) values ('east-claims-north', 'east', 'dnp3', 'B', $1)`,
    [{ masterIdentity: 'scada.north.example', tlsMinVersion: '1.2', caFile: tenants.certs.pem('rogue-ca') }]);
  try {
    // The reload applied: east's own leaf for that name (rogue-ca's) now reaches east's integration.
    await waitFor('the claimant\'s own leaf admitted to its integration', () => served({ cert: tenantFile('rogue.example'), key: tenantFile('rogue.example-key') }));
    assert.not.ok(northClosed, 'north\'s open connection was not cut off');
    assert.equal(cutOff.slice(cutBefore), [], 'nobody cut off');
    assert.ok(await served(northTls), 'north is still admitted on a new connection');
    refused++;
  } finally {
    northOpen.end();
    await pool.query(`delete from integrations where id = 'east-claims-north'`);
  }
});

/** The TLS session a served connection as `client` leaves behind (TLS 1.2 ID or ticket, TLS 1.3 ticket), and whether it was resumed. */
function servedSession(client: Partial<ConnectionOptions>): Promise<{ answered: boolean; reused: boolean; session: Buffer | undefined }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: service.server.port, ca: tenantFile('ca'), servername: 'outstation.test', ...client });
    const seen = { answered: false, reused: false, session: undefined as Buffer | undefined };
    const done = () => { clearTimeout(timer); resolve(seen); socket.destroy(); };
    const timer = setTimeout(done, 5000);
    socket.on('error', () => {});
    socket.on('secureConnect', () => { seen.reused = socket.isSessionReused(); socket.write(CLASS0); });
    // The server's session tickets come before its first answer: the session is complete once the answer is in.
    // (Read while the socket is open: Node 20 crashes reading a destroyed socket's session.)
    socket.once('data', () => { seen.answered = true; seen.session = socket.getSession(); done(); });
    socket.once('close', done);
  });
}

test('TLS session resumption: the session of a served master offered again, without a certificate, is not resumed and is refused; with its certificate it is verified again', async () => {
  for (const maxVersion of ['TLSv1.2', 'TLSv1.3'] as const) {
    const first = await servedSession({ ...masterTls('north'), maxVersion });
    assert.ok(first.answered, `${maxVersion}: north served`);
    tried++;
    // A resumed session skips the client certificate: an expired or revoked one would ride it. No certificate at all here.
    const riding = await servedSession({ ca: tenantFile('ca'), maxVersion, ...(first.session ? { session: first.session } : {}) });
    assert.not.ok(riding.reused, `${maxVersion}: the offered session is not resumed`);
    assert.not.ok(riding.answered, `${maxVersion}: not one DNP3 octet without a certificate`);
    const again = await servedSession({ ...masterTls('north'), maxVersion, ...(first.session ? { session: first.session } : {}) });
    assert.ok(again.answered && !again.reused, `${maxVersion}: north offering its session is served on a full handshake`);
    refused++;
  }
});

/** A certificate for `name` from the hostile tenant's own CA (rogue-ca, east's caFile): east's real master. */
function eastMaster(): { cert: Buffer; key: Buffer } {
  execFileSync('bash', ['-c', `set -e; cd "${tenants.certs.dir}"; [ -f scada.east.example.pem ] && exit 0
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=scada.east.example" -keyout scada.east.example-key.pem -out east.csr 2>/dev/null
    printf "subjectAltName=DNS:scada.east.example\\nextendedKeyUsage=clientAuth\\n" > east.ext
    openssl x509 -req -in east.csr -CA rogue-ca.pem -CAkey rogue-ca-key.pem -CAcreateserial -days 30 -extfile east.ext -out scada.east.example.pem 2>/dev/null`]);
  return { cert: tenantFile('scada.east.example'), key: tenantFile('scada.east.example-key') };
}

test("another tenant's real master, known at eight addresses, holds silent connections from all of them: north's master still gets a kept slot", async () => {
  const northTls = masterTls('north');
  assert.ok(await served(northTls), 'north served before the attack (its address is known)');
  const east = { ca: tenantFile('ca'), ...eastMaster() };
  // East completes a handshake as its own master from each address: all eight are known masters' addresses now.
  for (let a = 2; a <= 9; a++) assert.ok(await served({ ...east, localAddress: `127.0.0.${a}` }), `east's master served from 127.0.0.${a}`);
  tried++;
  const attack = await silentConnections(service.server.port);
  try {
    assert.ok(await served(northTls), 'north is served while east\'s known addresses hold every slot they can');
    refused++;
  } finally {
    attack.stop();
  }
});

test('a flood of refusals from one address: every one counted in faultline_scada_master_refused_total, a log line a minute', async () => {
  const refusedTotal = async () => (await masterMetrics.refused.get()).values
    .filter((v) => v.labels.protocol === 'dnp3' && v.labels.reason === 'wrongIssuer').reduce((n, v) => n + v.value, 0);
  const lines: string[] = [];
  const warn = log.warn;
  log.warn = function (this: typeof log, ...args: unknown[]) {
    const msg = args.find((a) => typeof a === 'string');
    if (typeof msg === 'string' && msg.startsWith('SCADA master connection refused')) lines.push(msg);
    return (warn as (...a: unknown[]) => void).apply(this, args);
  } as typeof log.warn;
  const n = 30;
  tried++;
  try {
    const before = await refusedTotal();
    for (let i = 0; i < n; i++) {
      const r = await exchange({ ca: tenantFile('ca'), cert: tenantFile('rogue.example'), key: tenantFile('rogue.example-key') }, CLASS0, 3000, service.server.port);
      assert.is(toHex(r.received), '', 'refused');
    }
    await waitFor(`${n} refusals counted`, async () => (await refusedTotal()) - before >= n);
    assert.is((await refusedTotal()) - before, n, 'every refusal counted');
    assert.ok(lines.length <= 1, `${lines.length} log lines for ${n} refusals of one reason from one address`);
    refused++;
  } finally {
    log.warn = warn;
  }
});

test("a master under an intermediate CA (root -> intermediate -> leaf): served with the intermediate and its root in caFile, as the docs say; the intermediate alone is refused at the handshake", async () => {
  const pool = tenants.db.pool;
  const d = tenants.certs.dir;
  execFileSync('bash', ['-c', `set -e; cd "${d}"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj "/CN=west root" -keyout west-root-key.pem -out west-root.pem 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=west intermediate" -keyout west-int-key.pem -out west-int.csr 2>/dev/null
    printf "basicConstraints=critical,CA:TRUE,pathlen:0\\nkeyUsage=critical,keyCertSign,cRLSign\\nsubjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n" > west-int.ext
    openssl x509 -req -in west-int.csr -CA west-root.pem -CAkey west-root-key.pem -CAcreateserial -days 30 -extfile west-int.ext -out west-int.pem 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=scada.west.example" -keyout scada.west.example-key.pem -out west.csr 2>/dev/null
    printf "basicConstraints=CA:FALSE\\nsubjectAltName=DNS:scada.west.example\\nextendedKeyUsage=clientAuth\\nauthorityKeyIdentifier=keyid\\n" > west.ext
    openssl x509 -req -in west.csr -CA west-int.pem -CAkey west-int-key.pem -CAcreateserial -days 30 -extfile west.ext -out scada.west.example.pem 2>/dev/null
    cat scada.west.example.pem west-int.pem > west-chain.pem
    cat west-int.pem west-root.pem > west-int-and-root.pem`]);
  // What the docs say a caFile holds for an intermediate (the old text said the intermediate alone would do).
  assert.match(readFileSync(new URL('../../docs/dnp3.md', import.meta.url), 'utf8'), /when that is an intermediate, the chain up to its self-signed root/);
  await pool.query(`insert into organizations ("OrganizationID", name) values ('west', 'West') on conflict do nothing`);
  const caFile = (name: string) => ({ masterIdentity: 'scada.west.example', tlsMinVersion: '1.2', caFile: tenants.certs.pem(name) });
  await pool.query(`insert into integrations (id, "OrganizationID", kind, channel, settings) values ('west-dnp3', 'west', 'dnp3', 'A', $1)`, [caFile('west-int-and-root')]);
  try {
    const key = tenantFile('scada.west.example-key');
    await waitFor('west\'s master (leaf and intermediate sent) served', () => served({ cert: tenantFile('west-chain'), key }));
    assert.ok(await served({ cert: tenantFile('scada.west.example'), key }), 'west\'s leaf alone is served too');
    assert.not.ok(await served({ cert: tenantFile('west-int'), key: tenantFile('west-int-key') }), 'the intermediate itself is no master');
    // The intermediate alone: OpenSSL wants a self-signed anchor (Node's allowPartialTrustChain is lost when `ca` is given).
    await pool.query(`update integrations set settings = $2 where id = $1`, ['west-dnp3', caFile('west-int')]);
    await waitFor('west refused with the intermediate alone', async () => !(await served({ cert: tenantFile('west-chain'), key })));
  } finally {
    await pool.query(`delete from integrations where id = 'west-dnp3'`);
  }
});

test("a hostile tenant claims north's master by a pin of its public certificate, and by north's public CA in a caFile: the import refuses it without naming north, and a row written anyway does not shut north out", async () => {
  const pool = tenants.db.pool;
  const pin = join(tenants.certs.dir, 'east-pins-north.pem');
  writeFileSync(pin, tenantFile('scada.north.example'));
  const claims: [string, Record<string, unknown>][] = [
    ['a pin of north\'s public certificate', { certificateMode: 'pinned', pinnedCertificateFile: pin }],
    ['north\'s public CA as its caFile', { certificateMode: 'ca', caFile: tenants.certs.pem('ca') }],
  ];
  for (const [label, settings] of claims) {
    tried++;
    const row = { id: 'east-claims-north', OrganizationID: 'east', kind: 'dnp3', channel: 'B', enabled: true, masterIdentity: 'scada.north.example', tlsMinVersion: '1.2', outstationAddress: 30, masterAddress: 3, ...settings };
    const err = await importReferenceData(pool, { integrations: [row] }).then(() => undefined, (e: unknown) => e);
    assert.instance(err, ImportError, `${label}: the import is refused`);
    const text = formatProblems((err as ImportError).problems);
    assert.match(text, /already claimed by another organisation/, text);
    assert.not.ok(text.includes('north-dnp3') || text.includes('"north"'), `the other organisation is not named: ${text}`);
    // Written anyway (SQL, an older release): north keeps its master. South disabled in the same transaction shows the reload ran.
    const northOpen = await hold(masterTls('north'));
    assert.ok(northOpen.answered, 'north connected');
    let northClosed = false;
    void northOpen.closed.then(() => { northClosed = true; });
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query(`insert into integrations (id, "OrganizationID", kind, channel, settings) values ('east-claims-north', 'east', 'dnp3', 'B', $1)`,
        [{ masterIdentity: 'scada.north.example', tlsMinVersion: '1.2', ...settings }]);
      await client.query('update integrations set enabled = false where id = $1', [tenants.id('south')]);
      await client.query('commit');
    } finally {
      client.release();
    }
    try {
      await waitFor('the reload applied (south refused)', async () => !(await served(masterTls('south'))));
      assert.ok(await served(masterTls('north')), `${label}: north is served on a new connection`);
      // After that round trip, a cut-off of the open connection (at the reload, before it) would have arrived.
      assert.not.ok(northClosed, `${label}: north's open connection was not cut off`);
      refused++;
    } finally {
      northOpen.end();
      await pool.query(`delete from integrations where id = 'east-claims-north'`);
      await pool.query('update integrations set enabled = true where id = $1', [tenants.id('south')]);
      await waitFor('south served again', () => served(masterTls('south')));
    }
  }
});

/** North's master, re-issued by the service CA with a second, short name besides its identity: scada1. */
function northWithTwoNames(): { cert: Buffer; key: Buffer } {
  execFileSync('bash', ['-c', `set -e; cd "${tenants.certs.dir}"; [ -f north-two-names.pem ] && exit 0
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=scada.north.example" -keyout north-two-names-key.pem -out north-two-names.csr 2>/dev/null
    printf "subjectAltName=DNS:scada.north.example,DNS:scada1\\nextendedKeyUsage=clientAuth\\n" > north-two-names.ext
    openssl x509 -req -in north-two-names.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 30 -extfile north-two-names.ext -out north-two-names.pem 2>/dev/null`]);
  return { cert: tenantFile('north-two-names'), key: tenantFile('north-two-names-key') };
}

/** A self-signed master certificate of east's own (a pin needs no CA) with `names` as its DNS SANs, on one key per `keyName`. */
function eastSelfSigned(file: string, keyName: string, names: string[]): { cert: Buffer; key: Buffer } {
  execFileSync('bash', ['-c', `set -e; cd "${tenants.certs.dir}"
    [ -f ${keyName}-key.pem ] || openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ${keyName}-key.pem 2>/dev/null
    printf "subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}\\nextendedKeyUsage=clientAuth\\n" > ${file}.ext
    openssl req -new -x509 -key ${keyName}-key.pem -subj "/CN=${names[0]}" -days 30 -extensions v3 -config <(printf "[req]\\ndistinguished_name=dn\\n[dn]\\n[v3]\\n"; cat ${file}.ext) -out ${file}.pem 2>/dev/null`]);
  return { cert: tenantFile(file), key: tenantFile(`${keyName}-key`) };
}

/** Runs `body` with the service's error and info log lines caught: [fields, message]. */
async function withLogLines<T>(body: (lines: [Record<string, unknown>, string][]) => Promise<T>): Promise<T> {
  const lines: [Record<string, unknown>, string][] = [];
  const was = { error: log.error, info: log.info };
  for (const level of ['error', 'info'] as const) {
    log[level] = function (this: typeof log, ...args: unknown[]) {
      const fields = args.find((a) => typeof a === 'object' && a !== null) as Record<string, unknown> | undefined;
      const msg = args.find((a) => typeof a === 'string');
      if (typeof msg === 'string') lines.push([fields ?? {}, msg]);
      return (was[level] as (...a: unknown[]) => void).apply(this, args);
    } as typeof log.error;
  }
  try {
    return await body(lines);
  } finally {
    Object.assign(log, was);
  }
}

test("a hostile tenant pins north's master certificate under its second SAN, with an older claim: the import refuses the pin, and a row written anyway does not hand north's master to it", async () => {
  const pool = tenants.db.pool;
  const northTwoNames = northWithTwoNames();
  assert.ok(await served(northTwoNames), 'north\'s master with two names is served to north');
  tried++;
  const pin = tenants.certs.pem('north-two-names');
  const row = { id: 'east-pins-scada1', OrganizationID: 'east', kind: 'dnp3', channel: 'B', enabled: true, masterIdentity: 'scada1', tlsMinVersion: '1.2', outstationAddress: 31, masterAddress: 3, certificateMode: 'pinned', pinnedCertificateFile: pin };
  const err = await importReferenceData(pool, { integrations: [row] }).then(() => undefined, (e: unknown) => e);
  assert.instance(err, ImportError, 'the import refuses a pin of a certificate that names another organisation\'s master');
  const text = formatProblems((err as ImportError).problems);
  assert.match(text, /pinnedCertificateFile/, text);
  assert.not.ok(text.includes('north-dnp3') || text.includes('"north"'), `the other organisation is not named: ${text}`);
  // Written anyway, with a claim older than north's (an old row repointed by SQL): the listener's load finds the pin
  // naming north's master identity and leaves the row out (docs/decisions.md#pins-checked-at-load), so north's master
  // stays north's and is not even made ambiguous (before that check it was refused as ambiguous until the row went).
  try {
    await withLogLines(async (lines) => {
      await pool.query(`insert into integrations (id, "OrganizationID", kind, channel, settings) values ('east-pins-scada1', 'east', 'dnp3', 'B', $1)`,
        [{ masterIdentity: 'scada1', tlsMinVersion: '1.2', outstationAddress: 31, certificateMode: 'pinned', pinnedCertificateFile: pin }]);
      await pool.query(`update integrations set claimed_at = now() - interval '10 years' where id = 'east-pins-scada1'`);
      await waitFor('the row judged at the reload', async () => lines.some(([f]) => f.integration === 'east-pins-scada1'));
    });
    assert.ok(await served(northTwoNames), 'north\'s two-name master is still served north\'s points');
    assert.ok(await served(masterTls('north')), 'north\'s master under its one name is still served');
    refused++;
  } finally {
    await pool.query(`delete from integrations where id = 'east-pins-scada1'`);
  }
  await waitFor('north\'s two-name master served again once the row is gone', () => served(northTwoNames));
});

test("a pinned certificate file swapped on disk after the import to name north's master (east's own certificate, then north's public one): judged again at the load SIGHUP asks for, not admitted with a logged reason, east's master refused, north's master served its own points", async () => {
  const pool = tenants.db.pool;
  const pin = join(tenants.certs.dir, 'east-rtu-pin.pem');
  const own = eastSelfSigned('east-rtu', 'east-rtu', ['scada.east-rtu.example']);
  const swapped = eastSelfSigned('east-rtu-swapped', 'east-rtu', ['scada.east-rtu.example', 'scada.north.example']);
  const northTwoNames = northWithTwoNames();
  const rows = [
    { id: 'east-rtu', masterIdentity: 'scada.east-rtu.example' },
    // Under north's second SAN, which north does not claim: the import admits a pin of a certificate naming only it.
    { id: 'east-scada1', masterIdentity: 'scada1', outstationAddress: 31, masterAddress: 3 },
  ];
  writeFileSync(pin, own.cert);
  const pin1 = join(tenants.certs.dir, 'east-scada1-pin.pem');
  writeFileSync(pin1, eastSelfSigned('east-scada1', 'east-scada1', ['scada1']).cert);
  await importReferenceData(pool, { integrations: rows.map((r) => ({
    ...r, OrganizationID: 'east', kind: 'dnp3', channel: 'B', enabled: true, tlsMinVersion: '1.2', certificateMode: 'pinned', pinnedCertificateFile: r.id === 'east-rtu' ? pin : pin1,
  })) });
  try {
    await waitFor('east\'s pinned master served once the import is loaded', () => served(own));
    assert.ok(await served(northTwoNames), 'north\'s two-name master served beside a pin of east\'s own scada1 certificate');
    await withLogLines(async (lines) => {
      // East swaps both files: its own certificate now also names north's master; the other pin is north's public certificate.
      tried += 2;
      writeFileSync(pin, swapped.cert);
      writeFileSync(pin1, northTwoNames.cert);
      const before = serviceRefusals.length;
      process.kill(process.pid, 'SIGHUP');
      // The load SIGHUP asked for has applied once its round says what changed (both, whether refused or taken).
      const reloaded = ([f, m]: [Record<string, unknown>, string]) => m === 'DNP3 integrations reloaded' && ['removed', 'changed'].some((k) => (f[k] as string[]).includes('east-scada1'));
      await waitFor('the reload applied', async () => lines.some(reloaded));
      assert.not.ok(await served(swapped), 'east\'s master with the swapped certificate is refused');
      assert.ok(serviceRefusals.length > before, `the refusal is counted: ${serviceRefusals.slice(before).join()}`);
      // Answered at outstation address 10: north's (east's scada1 integration answers at 31).
      assert.ok(await served(northTwoNames), 'north\'s two-name master is served north\'s points: neither ambiguous nor east\'s');
      refused += 2;
      const logged = lines.filter(([, m]) => m.includes('another organisation claims'));
      assert.equal([...new Map(logged.map(([f]) => [f.integration, f.names])).entries()].sort(), [['east-rtu', ['scada.north.example']], ['east-scada1', ['scada.north.example']]]);
      const text = JSON.stringify(logged);
      assert.not.ok(/BEGIN|PRIVATE|north-dnp3|"north"/.test(text), `the log names no certificate content nor the other organisation: ${text}`);
    });
  } finally {
    await pool.query(`delete from integrations where id = any($1::text[])`, [rows.map((r) => r.id)]);
  }
});

test('garbage, HTTP and plain DNP3 before the TLS handshake: closed without an answer', async () => {
  const inputs: [string, Uint8Array][] = [
    ['random 64 KiB', randomBytes(64 * 1024)], ['HTTP request', Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')], ['plain DNP3 class 0 read', CLASS0],
    ['a TLS record header claiming 16 MB', hex('16 03 01 FF FF')], ['zeros', new Uint8Array(4096)], ['a complete SSLv2 ClientHello', hex('80 2E 01 00 02 00 15 00 00 00 10 07 00 C0 05 00 80 03 00 80 01 00 80 06 00 40 04 00 80 02 00 80 00 00 04 00 FE FF 00 00 0A 00 00 09 00 00 64 00 00 62 00 00 03 00 00 06 1F 17 0C A6 2F 00 78 FC 46 55 2E B1 83 39 F1 EA')],
  ];
  for (const [label, bytes] of inputs) {
    tried++;
    const r = await raw(bytes);
    assert.ok(r.closed, `${label}: connection closed`);
    assert.not.ok(r.received.includes(Buffer.from([0x05, 0x64])), `${label}: no DNP3 frame came back`);
    refused++;
  }
  await legitimateServed('after garbage before the handshake');
});

test('100 connections that never finish a handshake: the legitimate master is still answered', async () => {
  const idle: Socket[] = [];
  for (let i = 0; i < 100; i++) {
    // From another address than the master's: handshakes are capped per address (dnp3/server.ts), so a
    // stranger's hanging connections cannot crowd the master out.
    const s = tcpConnect({ host: '127.0.0.1', port: server.port, localAddress: '127.0.0.2' });
    s.on('error', () => {});
    if (i % 2) s.on('connect', () => s.write(hex('16 03 01 00 40'))); // half a ClientHello
    idle.push(s);
  }
  tried++;
  try {
    await legitimateServed('while 100 connections hang');
    refused++;
  } finally {
    for (const s of idle) s.destroy();
  }
});

test('a frame flood from an authenticated master (4 MB of frames and garbage): the outstation survives, others are served during it', async () => {
  const flood = Buffer.concat([...Array.from({ length: 20_000 }, () => Buffer.from(CLASS0)), randomBytes(1024 * 1024), ...Array.from({ length: 20_000 }, (_, i) => Buffer.from(CLASS0.map((b, j) => (j === 10 + (i % 8) ? b ^ 0xff : b))))]);
  tried++;
  const flooding = new Promise<{ received: number; error?: string }>((resolve) => {
    let received = 0;
    let error: string | undefined;
    const socket = connect({ host: '127.0.0.1', port: server.port, ca: pem('ca'), servername: 'outstation.test', cert: pem('scada.north.example'), key: pem('scada.north.example-key') });
    const timer = setTimeout(() => { socket.destroy(); }, 8000);
    socket.on('secureConnect', () => { socket.write(flood); });
    socket.on('data', (c: Buffer) => { received += c.length; });
    socket.on('error', (e) => { error = e.message; });
    socket.on('close', () => { clearTimeout(timer); resolve({ received, ...(error ? { error } : {}) }); });
  });
  await new Promise((r) => setTimeout(r, 200));
  await legitimateServed('during a frame flood');
  const f = await flooding;
  // Whether the flooder is answered or cut off is the outstation's business; it must not take the server with it.
  console.log(`flood: ${flood.length} bytes sent, ${f.received} bytes answered${f.error ? `, ${f.error}` : ''}`);
  await legitimateServed('after a frame flood');
  refused++;
});

test.run();
