// Interop: c104 (PyPI, over lib60870-C; run as a test peer only) is the controlling station over mutual TLS
// (IEC 62351-3). General interrogation returns every point of the point model with its value and quality;
// a fault and its clearing arrive as spontaneous events carrying the devices' own timestamps; clock
// synchronisation and the test command are confirmed; a certificate from a foreign CA is refused; a second
// connection of the redundancy group stands by and takes over when the first drops, losing and repeating nothing.
// tshark decrypts the session's TLS as captured on the wire (a relay between c104 and the station) with the
// station's key log and decodes every APDU the station sent and received.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { applyDevice } from '../../../iec104/data/apply.js';
import { floatIoa, iec104Point, singleIoa } from '../../../iec104/data/point-map.js';
import { Iec104Outstation } from '../../../iec104/outstation.js';
import { startIec104Server, type Iec104Server } from '../../../iec104/server.js';
import { DEFAULT_TIMERS } from '../../../iec104/station/station.js';
import { deviceSamples, type DeviceSnapshot } from '../../../points/device-points.js';
import { devCerts } from '../../helpers/dev-certs.js';
import { C104Master, type Line } from './c104-master.js';
import type { Chunk } from '../dnp3/pcap.js';
import { ApduParser } from '../../../iec104/apci/apci.js';
import { apduSign, decodeCapture, startRelay, type ApduSign, type Relay } from './tls-capture.js';

const CLOCK_26H = { floorS: 300, ceilingS: 26 * 3600 };
const certs = devCerts('iec104-interop-');

const now = Date.now();
const device = (slot: number, over: Partial<DeviceSnapshot> = {}): DeviceSnapshot => ({
  imei: `86100000000010${slot}`, slot, name: `North F7 Pole ${slot}`, date: now - 60_000 * (slot + 1),
  actualOngoingFault: 0, batteryOrLine: 0, averageCurrent1m: 120.5, prefaultCurrent: 118, faultCurrent: null, faultTime: null,
  peakCurrent24h: 210, averageCurrent1h: 121.25, batteryMcu: 3.5, temperature: 21, ...over,
});

const outstation = new Iec104Outstation(1);
let server: Iec104Server;
let master: C104Master;
/** Between c104 and the station: the TLS bytes on the wire, for tshark. */
let relay: Relay;
/** The station's TLS secrets per session (NSS key log), so tshark can decrypt the capture. */
const keylog: string[] = [];
const refused: string[] = [];
/** The plaintext of every session (what went inside TLS): the APDUs tshark must find in the capture. */
const traffic: Chunk[] = [];

test.before(async () => {
  outstation.sizeBanks(1);
  for (const d of [device(0), device(1)]) applyDevice(outstation, d, now, CLOCK_26H, false);
  server = await startIec104Server({
    port: 0, host: '127.0.0.1',
    tls: { key: readFileSync(certs.pem('outstation.test-key')), cert: readFileSync(certs.pem('outstation.test')), ca: [readFileSync(certs.pem('ca')), readFileSync(certs.pem('rogue-ca'))] },
    integrations: () => [{ id: 'north-scada', organizationId: 'north', masterIdentity: 'scada.north.example', commonAddress: 1, timers: DEFAULT_TIMERS, tlsMinVersion: 'TLSv1.2', certificateMode: 'ca', analogOnly: false, issuerCas: [new X509Certificate(readFileSync(certs.pem('ca')))] }],
    outstationFor: () => outstation,
    onRefused: (reason) => refused.push(reason),
    onRefusal: (_i, reason) => console.error(`station: ${reason}`),
    onKeylog: (line) => keylog.push(`${line.toString('utf8').trimEnd()}\n`),
    session: {
      onTraffic: (d, b) => {
        traffic.push({ direction: d, bytes: b.slice(), timeMs: Date.now() });
        if (process.env.IEC104_TRACE) console.error(`${Date.now() % 100000} ${d} ${Buffer.from(b).toString('hex').slice(0, 24)}`);
      },
    },
  });
  relay = await startRelay(server.port);
  master = new C104Master(relay.port, certs.master('north'));
  await master.until((l) => l.some((x) => x.ev === 'connected'), 'connection');
  assert.ok(master.lines.find((x) => x.ev === 'connected')!.ok, 'c104 connected');
});

test.after(async () => {
  await master.stop(); // killed by the redundancy test already, unless it failed earlier
  await relay.close();
  await server.close();
  certs.remove();
});

test('general interrogation: every point of the model with its value and quality, COT 20, confirmed and terminated', async () => {
  const want = [device(0), device(1)].flatMap((d) => deviceSamples(d, now, CLOCK_26H)).map((s) => iec104Point(s, 1).point);
  const answered = (l: Line[]) => l.filter((x) => x.ev === 'point' && x.cot === 'INTERROGATED_BY_STATION');
  master.send('gi 1');
  // c104 reports the command's outcome and the points from different threads: wait for both.
  const term = (l: Line[]) => l.some((x) => x.ev === 'asdu' && x.type === 'C_IC_NA_1' && x.cot === 'ACTIVATION_TERMINATION');
  await master.until((l) => term(l) && answered(l).length >= want.length, 'GI answer');
  const asdus = master.lines.filter((x) => x.ev === 'asdu' && x.type === 'C_IC_NA_1').map((x) => [x.cot, x.negative]);
  assert.equal(asdus, [['ACTIVATION_CON', false], ['ACTIVATION_TERMINATION', false]]);
  const got = answered(master.lines);
  assert.is(got.length, want.length);
  for (const p of want) {
    const g = got.find((x) => x.ioa === p.ioa)!;
    assert.ok(g, `IOA ${p.ioa} missing from ${JSON.stringify(got.map((x) => x.ioa))}`);
    assert.is(g.type, p.kind === 'binary' ? 'M_SP_NA_1' : 'M_ME_NC_1');
    assert.is(g.value, p.value, `IOA ${p.ioa}`);
    assert.equal(g.quality, p.quality ? ['Invalid'] : [], `IOA ${p.ioa}`);
  }
});

test('a fault and its clearing: spontaneous M_SP_TB_1 and M_ME_TF_1 with the devices\' timestamps', async () => {
  const faultAt = now - 5_000;
  applyDevice(outstation, device(1, { actualOngoingFault: 4, date: faultAt, faultCurrent: 812, faultTime: faultAt - 500 }), Date.now(), CLOCK_26H, false);
  const spont = (l: Line[]) => l.filter((x) => x.ev === 'point' && x.cot === 'SPONTANEOUS');
  await master.until((l) => spont(l).some((x) => x.ioa === floatIoa(1, 3)), 'fault current event');
  const fault = spont(master.lines);
  const at = (ioa: number) => fault.filter((x) => x.ioa === ioa).at(-1)!;
  assert.equal([at(singleIoa(1, 0)).type, at(singleIoa(1, 0)).value, at(singleIoa(1, 0)).recordedAt], ['M_SP_TB_1', 1, faultAt]); // fault active
  assert.equal([at(singleIoa(1, 1)).value, at(singleIoa(1, 1)).recordedAt], [1, faultAt]); // permanent fault
  assert.equal([at(floatIoa(1, 3)).type, at(floatIoa(1, 3)).value, at(floatIoa(1, 3)).recordedAt], ['M_ME_TF_1', 812, faultAt - 500]);
  assert.ok(fault.every((x) => x.ca === 1));
  const clearAt = now - 1_000;
  const before = spont(master.lines).length;
  applyDevice(outstation, device(1, { actualOngoingFault: 0, date: clearAt, faultCurrent: 812, faultTime: faultAt - 500 }), Date.now(), CLOCK_26H, false);
  await master.until((l) => spont(l).slice(before).some((x) => x.ioa === singleIoa(1, 0)), 'clearing event');
  const clear = spont(master.lines).slice(before);
  assert.equal([clear.find((x) => x.ioa === singleIoa(1, 0))!.value, clear.find((x) => x.ioa === singleIoa(1, 0))!.recordedAt], [0, clearAt]);
  assert.not.ok(clear.some((x) => x.ioa === floatIoa(1, 3)), 'the fault current did not change: no event');
});

test('clock synchronisation and the test command are confirmed positively', async () => {
  master.send('clock 1');
  master.send('test 1');
  await master.until((l) => l.filter((x) => x.ev === 'asdu' && x.cot === 'ACTIVATION_CON' && x.type !== 'C_IC_NA_1').length >= 2, 'test command answer');
  const con = master.lines.filter((x) => x.ev === 'asdu' && (x.type === 'C_CS_NA_1' || x.type === 'C_TS_TA_1')).map((x) => [x.type, x.cot, x.negative]);
  assert.equal(con, [['C_CS_NA_1', 'ACTIVATION_CON', false], ['C_TS_TA_1', 'ACTIVATION_CON', false]]);
});

test('a certificate from a CA that does not vouch for this integration is refused before any APDU', async () => {
  const rogue = new C104Master(server.port, { ca: certs.pem('ca'), cert: certs.pem('rogue.example'), key: certs.pem('rogue.example-key') }, 8);
  try {
    await rogue.until((l) => l.some((x) => x.ev === 'connected'), 'connection verdict');
    assert.is(rogue.lines.find((x) => x.ev === 'connected')!.ok, false);
    assert.ok(refused.includes('wrongIssuer'), JSON.stringify(refused));
  } finally {
    await rogue.stop();
  }
});

test('tshark decrypts the captured TLS session with the station\'s key log and decodes every APDU (GI, events, clock sync, test command), nothing malformed', async () => {
  const tshark = execFileSync('bash', [new URL('../dnp3/setup-tshark.sh', import.meta.url).pathname], { encoding: 'utf8' }).trim().split('\n').pop()!;
  assert.is(relay.connections.length, 1, 'c104 connected once, through the relay');
  // The APDUs the station sent and received, as its own parser split them (inside TLS, reported by the session).
  // Each direction in order (how the two directions interleave differs between the wire and the session).
  const byDirection = (apdus: readonly ApduSign[]) => ({ rx: apdus.filter((a) => a.direction === 'rx').map((a) => a.sign), tx: apdus.filter((a) => a.direction === 'tx').map((a) => a.sign) });
  const expected = () => {
    const parsers = { rx: new ApduParser(), tx: new ApduParser() };
    return byDirection(traffic.flatMap((c) => parsers[c.direction].push(Buffer.from(c.bytes)).map((a) => ({ direction: c.direction, sign: apduSign(a) }))));
  };
  // The capture and the session's record differ by what is in flight when taken: wait until they agree.
  let want = expected();
  let got = decodeCapture(tshark, relay.connections[0]!, keylog.join(''), certs.dir);
  const end = Date.now() + 60_000;
  while (JSON.stringify(byDirection(got.apdus)) !== JSON.stringify(want) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 1_000));
    want = expected();
    got = decodeCapture(tshark, relay.connections[0]!, keylog.join(''), certs.dir);
  }
  assert.ok(want.rx.length > 3 && want.tx.length > 10, `${want.rx.length} APDUs received, ${want.tx.length} sent`);
  assert.equal(byDirection(got.apdus), want, 'every APDU each way, decoded with its sequence numbers, type id and cause of transmission');
  const types = new Set(got.apdus.filter((a) => a.sign.startsWith('I ')).map((a) => a.sign.split(' ')[3]));
  for (const t of ['1', '13', '30', '36', '100', '103', '107']) assert.ok(types.has(t), `type ${t} decoded: ${[...types].join(' ')}`);
  assert.is(got.handshakeTypes.filter((t) => t === 20).length, 2, `both Finished messages decrypted (${got.cipherSuite}): handshake types ${got.handshakeTypes.join(' ')}`);
  assert.ok(got.encryptedRecords > 10, `${got.encryptedRecords} encrypted records`);
  assert.is(got.decryptedRecords, got.encryptedRecords, `every encrypted record decrypted (${got.cipherSuite})`);
  assert.equal(got.problems, [], 'no malformed or warned packet');
});

test('redundancy: a standby connection gets nothing until it starts; after the active one drops it gets what came since, once', async () => {
  const standby = new C104Master(server.port, certs.master('north'), 30, '1', true);
  try {
    await standby.until((l) => l.some((x) => x.ev === 'connected'), 'standby connection');
    assert.ok(standby.lines.find((x) => x.ev === 'connected')!.ok, 'connected, data transfer not started');
    const group = () => server.groups.get('north-scada') ?? [];
    assert.is(group().length, 2);
    // E1 while the first connection is active: only it hears it.
    const e1 = Date.now() - 3_000;
    const before = master.spontaneous().length;
    applyDevice(outstation, device(0, { actualOngoingFault: 4, date: e1 }), Date.now(), CLOCK_26H, false);
    await master.until(() => master.spontaneous().slice(before).some((x) => x.ioa === singleIoa(0, 0)), 'E1 on the active connection');
    // The master acknowledges within its t2 (10 s); then nothing is outstanding when it drops.
    const active = () => group().find((s) => s.isActive);
    const end = Date.now() + 60_000;
    while (active()!.station.remaining().length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 250));
    assert.is(active()!.station.remaining().length, 0, 'E1 acknowledged');
    master.kill();
    while (group().length > 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    assert.is(group().length, 1, 'the dropped connection left the group');
    // E2 while no connection is started: it waits.
    const e2 = Date.now() - 1_000;
    applyDevice(outstation, device(0, { actualOngoingFault: 0, date: e2 }), Date.now(), CLOCK_26H, false);
    assert.ok(outstation.pending > 0, 'E2 buffered');
    assert.not.ok(standby.spontaneous().length, 'the standby connection got nothing');
    standby.send('start');
    await standby.until(() => standby.spontaneous().some((x) => x.ioa === singleIoa(0, 0)), 'E2 after STARTDT');
    await new Promise((r) => setTimeout(r, 2_000)); // anything repeated would follow at once
    const faultActive = (m: C104Master) => m.spontaneous().filter((x) => x.ioa === singleIoa(0, 0)).map((x) => [x.value, x.recordedAt]);
    assert.equal(faultActive(master).slice(-1), [[1, e1]], 'E1 once, on the first connection');
    assert.equal(faultActive(standby), [[0, e2]], 'E2 once, on the second, and not E1 again');
  } finally {
    await standby.stop();
  }
});

test.run();
