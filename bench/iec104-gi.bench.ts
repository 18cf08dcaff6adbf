// IEC 104 general interrogation time (#33 point 8, the part done): a station with N devices' points (10,000 by
// default: two banks, common addresses 1 and 2) behind the real mutual-TLS listener, and a controlling station in
// this process that starts data transfer, sends a station interrogation to CA 0xFFFF and acknowledges every w
// I frames, as lib60870 does. Measured: from GI act to the last ACT_TERM, per round. What it does not measure
// yet: SQS-to-master fault latency beside DNP3's (bench/dnp3.bench.ts); see docs/iec104.md.
//   node --import tsx bench/iec104-gi.bench.ts [--devices 10000] [--rounds 5]
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { parseArgs } from 'node:util';
import { ApduParser, encodeApdu, type Apdu } from '../iec104/apci/apci.js';
import { applyDevice } from '../iec104/data/apply.js';
import { Iec104Outstation } from '../iec104/outstation.js';
import { startIec104Server } from '../iec104/server.js';
import { DEFAULT_TIMERS } from '../iec104/station/station.js';
import { bankCount } from '../points/banks.js';
import { execSync } from 'node:child_process';
import { join } from 'node:path';

const { values } = parseArgs({ options: { devices: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '5' } } });
const DEVICES = Number(values.devices);
const ROUNDS = Number(values.rounds);
// The development certificates, as bench/dnp3.bench.ts makes them (infra/certs.sh into .infra/certs).
const root = new URL('..', import.meta.url).pathname;
execSync('bash infra/certs.sh', { cwd: root, stdio: 'ignore' });
const pem = (n: string) => readFileSync(join(root, '.infra/certs', `${n}.pem`));
const now = Date.now();
const outstation = new Iec104Outstation(1);
outstation.sizeBanks(DEVICES - 1);
for (let slot = 0; slot < DEVICES; slot++) {
  applyDevice(outstation, { imei: String(860000000000000 + slot), slot, name: null, date: now, actualOngoingFault: slot % 50 === 0 ? 4 : 0, batteryOrLine: 0, averageCurrent1m: 100 + (slot % 7), prefaultCurrent: 90, faultCurrent: null, faultTime: null, peakCurrent24h: 200, averageCurrent1h: 101, batteryMcu: 3.5, temperature: 20 }, now, { floorS: 300, ceilingS: 26 * 3600 }, false);
}
const server = await startIec104Server({
  port: 0, host: '127.0.0.1', tls: { key: pem('outstation.test-key'), cert: pem('outstation.test'), ca: [pem('ca')] },
  integrations: () => [{ id: 'bench', organizationId: 'north', masterIdentity: 'scada.north.example', commonAddress: 1, timers: DEFAULT_TIMERS, tlsMinVersion: 'TLSv1.2', certificateMode: 'ca', analogOnly: false }],
  outstationFor: () => outstation,
});
const socket = connect({ host: '127.0.0.1', port: server.port, ca: pem('ca'), servername: 'outstation.test', cert: pem('scada.north.example'), key: pem('scada.north.example-key') });
await new Promise((r) => socket.once('secureConnect', r));
const parser = new ApduParser();
let vr = 0;
let vs = 0;
let unacked = 0;
let onFrame: (f: Apdu) => void = () => {};
socket.on('data', (c: Buffer) => {
  for (const f of parser.push(c)) {
    if (f.format === 'I') {
      vr = (vr + 1) % 32768;
      if (++unacked >= DEFAULT_TIMERS.w) { socket.write(encodeApdu({ format: 'S', nr: vr })); unacked = 0; }
    }
    onFrame(f);
  }
});
socket.write(encodeApdu({ format: 'U', fn: 'STARTDT_ACT' }));
await new Promise<void>((r) => { onFrame = (f) => { if (f.format === 'U' && f.fn === 'STARTDT_CON') r(); }; });

const banks = bankCount(DEVICES - 1);
const times: number[] = [];
let objects = 0;
for (let round = 0; round < ROUNDS; round++) {
  const started = performance.now();
  let terms = 0;
  objects = 0;
  await new Promise<void>((r) => {
    onFrame = (f) => {
      if (f.format !== 'I') return;
      if (f.asdu[0] === 100 && (f.asdu[2]! & 0x3f) === 10 && ++terms === banks) r();
      else if (f.asdu[0] !== 100) objects += f.asdu[1]! & 0x7f;
    };
    socket.write(encodeApdu({ format: 'I', ns: vs, nr: vr, asdu: Uint8Array.from([100, 0x01, 6, 0, 0xff, 0xff, 0, 0, 0, 20]) }));
    vs = (vs + 1) % 32768;
    unacked = 0;
  });
  times.push(performance.now() - started);
}
socket.destroy();
await server.close();
const sorted = [...times].sort((a, b) => a - b);
const result = { devices: DEVICES, banks, objects, rounds: ROUNDS, giMs: { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1) }, at: new Date().toISOString() };
console.log(JSON.stringify(result));
if (DEVICES === 10_000) {
  writeFileSync(new URL('results/iec104-gi-10000.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(new URL('results/iec104-gi-10000.md', import.meta.url), `# IEC 104 general interrogation, ${DEVICES} devices\n\n`
    + `Station interrogation to CA 0xFFFF (${banks} banks, ${objects} information objects) over mutual TLS on loopback, the master acknowledging every w = 8 I frames: `
    + `median ${Math.round(result.giMs.median!)} ms (min ${Math.round(result.giMs.min!)}, max ${Math.round(result.giMs.max!)}) over ${ROUNDS} rounds, ${result.at}, on the shared 2-core machine under load.\n`
    + `Beside it: DNP3's integrity poll of the same 10,000 devices, bench/results/dnp3-10000.md. Fault latency SQS -> 104 master: not measured yet.\n`);
}
