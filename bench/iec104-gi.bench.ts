// IEC 104 general interrogation time alone, with no servers: a station holding N devices' points (10,000 by
// default: two banks, common addresses 1 and 2), built in this process from synthetic samples, behind the real
// mutual-TLS listener, and the bench's controlling station (bench/iec104-master.ts) timing a station
// interrogation to CA 0xFFFF. A quick figure while working on the station; the GI time beside DNP3's integrity
// poll, and the SQS-to-104-master fault latency, come from bench/dnp3.bench.ts (docs/iec104.md#7-the-bench).
//   node --import tsx bench/iec104-gi.bench.ts [--devices 10000] [--rounds 5]
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { applyDevice } from '../iec104/data/apply.js';
import { Iec104Outstation } from '../iec104/outstation.js';
import { startIec104Server } from '../iec104/server.js';
import { DEFAULT_TIMERS } from '../iec104/station/station.js';
import { bankCount } from '../points/banks.js';
import { stats } from '../support/stats.js';
import { Iec104BenchMaster } from './iec104-master.js';

const { values } = parseArgs({ options: { devices: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '5' } } });
const DEVICES = Number(values.devices);
const ROUNDS = Number(values.rounds);
const say = (s: string) => process.stderr.write(`${s}\n`);
// The development certificates, as bench/dnp3.bench.ts makes them (infra/certs.sh into .infra/certs).
const root = new URL('..', import.meta.url).pathname;
execSync('bash infra/certs.sh', { cwd: root, stdio: 'ignore' });
const pem = (n: string) => readFileSync(join(root, '.infra/certs', `${n}.pem`));
const now = Date.now();
say(`iec104 GI bench: ${DEVICES} devices, ${ROUNDS} rounds`);
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
const master = await Iec104BenchMaster.connect({ port: server.port, ca: pem('ca'), servername: 'outstation.test', cert: pem('scada.north.example'), key: pem('scada.north.example-key') });

const banks = bankCount(DEVICES - 1);
const times: number[] = [];
let objects = 0;
for (let round = 1; round <= ROUNDS; round++) {
  const gi = await master.interrogate(banks);
  times.push(gi.ms);
  objects = gi.objects;
  say(`  round ${round}/${ROUNDS}: ${Math.round(gi.ms)} ms, ${gi.objects} information objects`);
}
master.close();
await server.close();
const result = { devices: DEVICES, banks, objects, rounds: ROUNDS, giMs: stats(times), loadAverage: loadavg().map((l) => Math.round(l * 10) / 10), at: new Date().toISOString() };
console.log(JSON.stringify(result));
if (DEVICES === 10_000) {
  writeFileSync(new URL('results/iec104-gi-10000.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(new URL('results/iec104-gi-10000.md', import.meta.url), `# IEC 104 general interrogation alone, ${DEVICES} devices\n\n`
    + `Station interrogation to CA 0xFFFF (${banks} banks, ${objects} information objects) over mutual TLS on loopback, a station built in the bench process from synthetic samples (no Postgres), the master acknowledging every w = 8 I frames: `
    + `median ${Math.round(result.giMs.median)} ms (min ${Math.round(result.giMs.min)}, max ${Math.round(result.giMs.max)}) over ${ROUNDS} rounds, ${result.at}, load average ${result.loadAverage.join(' / ')} (1 / 5 / 15 min).\n`
    + `The GI time beside DNP3's integrity poll in one run, and the SQS-to-104-master fault latency: bench/results/dnp3-10000.md.\n`);
}
