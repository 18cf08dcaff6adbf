// Interop: an opendnp3 master (PyPI yadnp3) polls our outstation over mutual TLS. Start-up sequence
// (clear restart, disable unsolicited, integrity poll, non-LAN time sync), then class 1/2/3 polls after new
// check-ins, checking the values and device timestamps the master decoded.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { toPcap } from './pcap.js';
import type { Chunk } from './pcap.js';
import { startDnp3Server } from '../../../dnp3/server.js';
import type { Dnp3Server } from '../../../dnp3/server.js';
import { Outstation } from '../../../dnp3/outstation/outstation.js';
import { applySnapshot, sizeBanks } from '../../../dnp3/data/apply.js';
import { analogIndex, binaryIndex } from '../../../dnp3/data/point-map.js';
import type { DeviceSnapshot } from '../../../dnp3/data/point-map.js';
import { Yadnp3Master, find } from '../../../support/dnp3-master.js';
import { registry } from '../../../config/metrics.js';
import { devCerts } from '../../helpers/dev-certs.js';
/** OFFLINE_AFTER_HOURS 26 as the communication-lost ceiling, the default floor (domain/checkin-clock.ts). */
const CLOCK_26H = { floorS: 300, ceilingS: 26 * 3600 };

const root = new URL('../../../', import.meta.url).pathname;
const certs = devCerts('dnp3-interop-');
const { pem } = certs;

const now = Date.now();
const device = (slot: number, over: Partial<DeviceSnapshot> = {}): DeviceSnapshot => ({
  imei: `86100000000010${slot}`, slot, name: `North F7 Pole ${slot}`, date: now - 60_000 * (slot + 1),
  actualOngoingFault: 0, batteryOrLine: 0, averageCurrent1m: 120.5, prefaultCurrent: 118, faultCurrent: null, faultTime: null,
  peakCurrent24h: 210, averageCurrent1h: 121.25, batteryMcu: 3.5, temperature: 21, ...over,
});

const outstation = new Outstation({ unsolicited: true });
const banks = [outstation];
let server: Dnp3Server;
let master: Yadnp3Master;
const traffic: Chunk[] = [];

test.before(async () => {
  sizeBanks(banks, 1, false);
  for (const d of [device(0), device(1)]) applySnapshot(banks, d, now, CLOCK_26H, false);
  server = await startDnp3Server({
    port: 0, host: '127.0.0.1',
    transport: { tls: { key: readFileSync(pem('outstation.test-key')), cert: readFileSync(pem('outstation.test')), ca: [readFileSync(pem('ca'))] } },
    integrations: () => [{ id: 'north-scada', organizationId: 'north', masterIdentity: 'scada.north.example', outstationAddress: 10, masterAddress: 1, unsolicited: true, tlsMinVersion: 'TLSv1.2', certificateMode: 'ca', analogOnly: false }],
    outstationsFor: () => banks,
    session: { onTraffic: (direction, bytes) => traffic.push({ direction, bytes: bytes.slice(), timeMs: Date.now() }) },
  });
  master = new Yadnp3Master(server.port, certs.master('north'));
});

test.after(async () => {
  await master.stop();
  await server.close();
  certs.remove();
});

// Static objects (g1v2, g30v5) carry no time; device timestamps travel with events (g2v2, g32v7).
test('start-up: integrity poll delivers every point; restart cleared, time synced', async () => {
  const a = await master.startup();
  const b0 = find(a, 'binary', binaryIndex(0, 7), false)!; // line powered
  assert.equal([b0.value, b0.flags], [true, 0x81]); // ONLINE | STATE (opendnp3 keeps the state bit in flags)
  assert.equal(find(a, 'binary', binaryIndex(1, 0), false)!.value, false);
  const current = find(a, 'analog', analogIndex(1, 1), false)!;
  assert.equal([current.value, current.flags], [120.5, 1]);
  assert.is(find(a, 'analog', analogIndex(0, 5), false)!.value, 121.25);
  assert.is(a.items.filter((i) => i.kind === 'analog' && !i.event).length >= 17, true);
  const again = await master.command('integrity');
  assert.is(again.iin.restart, false);
  assert.is(again.iin.needTime, false);
});

test('a permanent fault check-in: class 1 binary events and class 2 analog events with the device time', async () => {
  const faultAt = now + 1_000;
  applySnapshot(banks, device(0, { date: faultAt, actualOngoingFault: 4, faultCurrent: 812, faultTime: faultAt - 500 }), now, CLOCK_26H, false);
  const a = await master.command('events');
  assert.equal(find(a, 'binary', binaryIndex(0, 0), true), { outstation: 10, kind: 'binary', event: true, gv: find(a, 'binary', 0, true)!.gv, index: 0, value: true, flags: 0x81, time: faultAt });
  assert.is(find(a, 'binary', binaryIndex(0, 1), true)!.value, true);
  assert.equal([find(a, 'analog', analogIndex(0, 0), true)!.value, find(a, 'analog', analogIndex(0, 0), true)!.time], [4, faultAt]);
  assert.equal([find(a, 'analog', analogIndex(0, 3), true)!.value, find(a, 'analog', analogIndex(0, 3), true)!.time], [812, faultAt - 500]);
  assert.is(find(a, 'binary', binaryIndex(1, 0), true), undefined); // device 1 did not change
  const empty = await master.command('events');
  assert.is(empty.items.filter((i) => i.event).length, 0); // confirmed events are gone
});

test('integrity poll after the fault shows the new static values', async () => {
  const a = await master.command('integrity');
  assert.is(find(a, 'binary', binaryIndex(0, 1), false)!.value, true);
  assert.is(find(a, 'analog', analogIndex(0, 0), false)!.value, 4);
});

test('the sessions gauge says which integration has its master connected', async () => {
  const sessions = async () => (await registry.getSingleMetricAsString('faultline_dnp3_sessions')).split('\n').filter((l) => !l.startsWith('#'));
  assert.equal(await sessions(), ['faultline_dnp3_sessions{integration="north-scada"} 1']);
  server.sessions.get('north-scada')!.close('test');
  assert.equal(await sessions(), ['faultline_dnp3_sessions{integration="north-scada"} 0']);
  await master.command('integrity'); // opendnp3 reconnects
  assert.equal(await sessions(), ['faultline_dnp3_sessions{integration="north-scada"} 1']);
});

test('tshark dissects the session: DNP3 frames, every CRC good, nothing malformed', async () => {
  const tshark = execFileSync('bash', [join(root, 'test/interop/dnp3/setup-tshark.sh')], { encoding: 'utf8' }).trim().split('\n').pop()!;
  const file = join(certs.dir, 'session.pcap');
  writeFileSync(file, toPcap(traffic));
  const count = (filter: string) => execFileSync(tshark, ['-r', file, '-Y', filter, '-T', 'fields', '-e', 'frame.number'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    .split('\n').filter(Boolean).length;
  assert.ok(count('dnp3') > 10, 'DNP3 frames dissected');
  assert.ok(count('dnp.hdr.CRC.status == 1') > 10, 'header CRCs verified good');
  assert.ok(count('dnp3.al.func == 0x81') > 3, 'responses decoded at the application layer');
  assert.is(count('_ws.malformed || dnp3.hdr.CRC.incorrect || dnp3.data_chunk.CRC.incorrect || dnp.hdr.CRC.status == 0 || dnp.data_chunk.CRC.status == 0'), 0);
});

test.run();
