// Dedicated master ports (docs/decisions.md#dedicated-master-ports) on the running services (startDnp3Service,
// startIec104Service: integrations in Postgres, real mutual TLS): an integration whose settings name a `port` gets
// its master served there (a DNP3 integrity poll answered; IEC 104 STARTDT and a general interrogation), and only
// there; another organisation's master is refused on it; the port follows the integration through a reload (the
// old port stops listening and its connection is cut, the new one serves); a port that cannot be opened (in use,
// one of the service's own fixed ports) is counted and shuts out only the integrations naming it, and is opened on
// a later reload once it is free.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';
import { startDnp3Service } from '../../dnp3/service.js';
import { encodeFrame, frameSize, PrimaryFunction } from '../../dnp3/link/frame.js';
import { encodeApdu } from '../../iec104/apci/apci.js';
import { startIec104Service, type Iec104Service } from '../../iec104/service.js';
import type { ListenerRefusal } from '../../integrations/master-listener.js';
import { masterMetrics } from '../../integrations/master-metrics.js';
import { freePort } from '../../support/process.js';
import { waitFor } from '../../support/wait-for.js';
import { gi, isGi, openRawMaster, STARTDT, until } from '../helpers/iec104-raw-master.js';
import { scadaTenants, type ScadaTenants } from '../helpers/scada-tenants.js';
import { reportTally } from '../helpers/tally.js';

type Org = 'north' | 'south' | 'east';
let dnp3Tenants: ScadaTenants;
let dnp3: Awaited<ReturnType<typeof startDnp3Service>>;
let iecTenants: ScadaTenants;
let iec: Iec104Service;
const dnp3Refusals: ListenerRefusal[] = [];
const iecRefusals: ListenerRefusal[] = [];
let tried = 0;
let refused = 0;
let faults = 0;

/** An integrity poll (class 1, 2, 3 and 0 read) from master 1 to outstation 10, the integrations' default link addresses. */
const INTEGRITY_POLL = encodeFrame({
  dir: true, prm: true, fcb: false, fcvDfc: false, func: PrimaryFunction.UNCONFIRMED_USER_DATA, dest: 10, src: 1,
  data: Uint8Array.from([0xc0, 0xc0, 0x01, 0x3c, 0x02, 0x06, 0x3c, 0x03, 0x06, 0x3c, 0x04, 0x06, 0x3c, 0x01, 0x06]),
});

const setPort = (t: ScadaTenants, org: Org, port: number | null) => t.db.pool.query(
  `update integrations set settings = ${port === null ? `settings - 'port'` : `settings || jsonb_build_object('port', $2::int)`} where id = $1`,
  port === null ? [t.id(org)] : [t.id(org), port],
);

/** The port `org`'s integration names now. */
const portOf = async (t: ScadaTenants, org: Org): Promise<number> =>
  Number((await t.db.pool.query<{ port: string }>(`select settings->>'port' as port from integrations where id = $1`, [t.id(org)])).rows[0]!.port);

const unbound = async (protocol: string) => (await masterMetrics.unboundPorts.get()).values.find((v) => v.labels.protocol === protocol)?.value;

interface Dnp3Outcome { answered: boolean; connected: boolean; closed: Promise<void>; end(): void }

/** `org`'s master polls on `port`: whether the TLS connection came up and a DNP3 response (function 0x81) came back. */
function dnp3Poll(org: Org, port: number): Promise<Dnp3Outcome> {
  const file = (name: string) => readFileSync(dnp3Tenants.certs.pem(name));
  const tls: ConnectionOptions = { host: '127.0.0.1', port, servername: 'outstation.test', ca: file('ca'), cert: file(`scada.${org}.example`), key: file(`scada.${org}.example-key`) };
  return new Promise((resolve) => {
    let connected = false;
    let received = Buffer.alloc(0);
    const socket = connect(tls);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    const give = (answered: boolean) => { clearTimeout(timer); resolve({ answered, connected, closed, end: () => socket.destroy() }); };
    // Long enough for a loaded machine; a refused master is closed well before it.
    const timer = setTimeout(() => give(false), 15_000);
    socket.on('error', () => {});
    socket.on('secureConnect', () => { connected = true; socket.write(INTEGRITY_POLL); });
    // Frame by frame (an unsolicited response may come first): the link header (10 octets), then the first
    // block: transport header, application control, function (0x81: a response).
    socket.on('data', (c: Buffer) => {
      received = Buffer.concat([received, c]);
      while (received.length >= 13 && received[0] === 0x05 && received[1] === 0x64) {
        if (received[12] === 0x81) { give(true); return; }
        const size = frameSize(received[2]! - 5);
        if (received.length < size) return;
        received = received.subarray(size);
      }
    });
    socket.once('close', () => give(false));
  });
}

async function dnp3Served(org: Org, port: number): Promise<boolean> {
  const r = await dnp3Poll(org, port);
  r.end();
  return r.answered;
}

/** `org`'s 104 master on `port`: STARTDT confirmed and a general interrogation confirmed and terminated. */
async function iecServed(org: Org, port: number): Promise<boolean> {
  const c = await openRawMaster(port, iecTenants.certs.master(org), true).catch(() => undefined);
  if (!c) return false;
  try {
    c.send(encodeApdu(STARTDT));
    await until(() => c.isClosed() || c.frames.some((f) => f.format === 'U' && f.fn === 'STARTDT_CON'), 'STARTDT con or closed');
    if (c.isClosed()) return false;
    c.send(gi(0));
    await until(() => c.isClosed() || c.frames.some((f) => isGi(f, 10)), 'GI terminated or closed', 60_000);
    return c.frames.some((f) => isGi(f, 7)) && c.frames.some((f) => isGi(f, 10));
  } finally {
    c.end();
  }
}

test.before(async () => {
  dnp3Tenants = await scadaTenants('dnp3', 'dedicated-ports-dnp3');
  iecTenants = await scadaTenants('iec104', 'dedicated-ports-iec104');
});

test.after(async () => {
  await dnp3?.close();
  await iec?.close();
  await dnp3Tenants?.remove();
  await iecTenants?.remove();
  reportTally('scada-dedicated-ports', { attacksTried: tried, attacksRefused: refused, faultsInjected: faults });
});

test('DNP3: an integration with a dedicated port is served there, and only there; another organisation\'s master is refused on it', async () => {
  const dedicated = await freePort();
  await setPort(dnp3Tenants, 'north', dedicated);
  dnp3 = await startDnp3Service({
    pool: dnp3Tenants.db.pool, port: 0, host: '127.0.0.1', tlsFiles: dnp3Tenants.certs.outstation, offlineAfterHours: 26,
    onRefused: (reason) => dnp3Refusals.push(reason),
  });
  const shared = dnp3.server.port;
  assert.ok(await dnp3Served('north', dedicated), 'north\'s integrity poll is answered on its dedicated port');
  assert.ok(await dnp3Served('south', shared), 'south (no port) is served on the shared port');
  tried++;
  const before = dnp3Refusals.filter((r) => r === 'unknownIdentity').length;
  assert.not.ok(await dnp3Served('south', dedicated), 'south\'s master is refused on north\'s dedicated port');
  await waitFor('south refused as unknownIdentity on north\'s port', () => dnp3Refusals.filter((r) => r === 'unknownIdentity').length > before);
  refused++;
  assert.not.ok(await dnp3Served('north', shared), 'north is served on its own port only, not on the shared one');
});

test('DNP3: the port follows the integration through a reload: the old port stops listening (its connection cut), the new one serves', async () => {
  const oldPort = await portOf(dnp3Tenants, 'north');
  const old = await dnp3Poll('north', oldPort);
  assert.ok(old.answered, 'north is served on its old port');
  const moved = await freePort();
  // The statement's NOTIFY reloads the integrations (as `faultline import` and the admin API do).
  await setPort(dnp3Tenants, 'north', moved);
  await old.closed;
  await waitFor('north served on its new port', () => dnp3Served('north', moved), { timeoutMs: 60_000 });
  const gone = await dnp3Poll('north', oldPort);
  gone.end();
  assert.not.ok(gone.connected, 'nothing listens on the old port any more');
});

test('DNP3: a dedicated port in use or reserved is counted and shuts out only its integration; it opens on a later reload once free', async () => {
  faults++;
  const busy = createServer();
  const taken = await new Promise<number>((resolve) => busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)));
  await setPort(dnp3Tenants, 'south', taken);
  await waitFor('the port in use counted', async () => (await unbound('dnp3')) === 1, { timeoutMs: 60_000 });
  assert.ok(await dnp3Served('north', await portOf(dnp3Tenants, 'north')), 'north is still served while south\'s port cannot be opened');
  assert.not.ok(await dnp3Served('south', dnp3.server.port), 'south is not served on the shared port meanwhile');
  await new Promise<void>((r) => busy.close(() => r()));
  dnp3.reload();
  await waitFor('south served on its port once free', () => dnp3Served('south', taken), { timeoutMs: 60_000 });
  assert.is(await unbound('dnp3'), 0, 'nothing left unbound');
});

test('IEC 104: a dedicated port serves STARTDT and a general interrogation for its integration only, and follows it through a reload', async () => {
  const dedicated = await freePort();
  await setPort(iecTenants, 'north', dedicated);
  iec = await startIec104Service({
    pool: iecTenants.db.pool, port: 0, host: '127.0.0.1', tlsFiles: iecTenants.certs.outstation, offlineAfterHours: 26,
    // The other protocol's shared port, as config/settings.ts fixedPorts gives it: never an integration's.
    reserved: new Map([[dnp3.server.port, 'DNP3_PORT']]),
    onRefused: (reason) => iecRefusals.push(reason),
  });
  assert.ok(await iecServed('north', dedicated), 'north is served on its dedicated port');
  assert.ok(await iecServed('south', iec.server.port), 'south is served on the shared port');
  tried++;
  const before = iecRefusals.filter((r) => r === 'unknownIdentity').length;
  assert.not.ok(await iecServed('south', dedicated), 'south is refused on north\'s port');
  await waitFor('south refused as unknownIdentity', () => iecRefusals.filter((r) => r === 'unknownIdentity').length > before);
  refused++;
  assert.not.ok(await iecServed('north', iec.server.port), 'north is not served on the shared port');
  // Moved: the old port closes, the new one serves.
  const held = await openRawMaster(dedicated, iecTenants.certs.master('north'), true);
  const moved = await freePort();
  await setPort(iecTenants, 'north', moved);
  await held.closed;
  await waitFor('north served on its new port', () => iecServed('north', moved), { timeoutMs: 60_000 });
  assert.not.ok(await iecServed('north', dedicated), 'the old port serves nothing any more');
  // A reserved port: counted, only east shut out.
  faults++;
  await setPort(iecTenants, 'east', dnp3.server.port);
  await waitFor('the reserved port counted', async () => (await unbound('iec104')) === 1, { timeoutMs: 60_000 });
  assert.ok(await iecServed('north', moved), 'north still served');
  assert.ok(await iecServed('south', iec.server.port), 'south still served');
});

test.run();
