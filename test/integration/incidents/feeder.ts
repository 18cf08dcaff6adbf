// The test feeder of the incident suites (pipeline, portal): power line north-F9 with an imported topology,
// and check-ins of the shipped fixture's shape with a chosen fault and events.
import type pg from 'pg';
import { startIncidentWorker } from '../../../incidents/worker.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { fixtureText } from '../../../support/checkins.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { importDemoData } from '../../../support/reference-data.js';

// H - T1 - T2 (trunk, three-phase); T1 - LA1 - LA2 (lateral A); T1 - LB1 (lateral B).
export const IMEI = { H: '861000000009000', T1: '861000000009010', T2: '861000000009020', LA1: '861000000009030', LA2: '861000000009040', LB1: '861000000009050' };
export type Name = keyof typeof IMEI;
const TOPOLOGY: [Name, Name | null, string, string | null, string][] = [
  ['H', null, 'ABC', 'Substation exit', 'north-east'], ['T1', 'H', 'ABC', 'Trunk 1', 'north-east'], ['T2', 'T1', 'ABC', null, 'north-west'],
  ['LA1', 'T1', 'A', 'Lateral A', 'north-east'], ['LA2', 'LA1', 'A', null, 'north-west'], ['LB1', 'T1', 'B', 'Lateral B', 'north-west'],
];

export const topologyFile = () => ({
  powerLines: [{ Id: 'north-F9', OrganizationID: 'north', name: 'Feeder 9' }],
  devices: TOPOLOGY.map(([name, up, phase, section, group], i) => ({
    IMEINumber: IMEI[name], OrganizationID: 'north', PowerLineID: 'north-F9', Real_Name: `F9 ${name}`, Lat: 41.9 + i * 0.01, Long: -87.6 + (phase === 'B' ? 0.02 : phase === 'A' ? -0.02 : 0),
    groups: [group], dnp3QueueAddress: 'dnp3.north', UpstreamIMEI: up ? IMEI[up] : null, Phase: phase, Section: section,
  })),
});

let seq = 0;
/** Check-ins dated relative to `base` (ms): `minutes` after it, events at `atMin`. */
export function checkInAt(base: number) {
  return (name: Name, minutes: number, fault: number, events: { type: string; atMin: number }[] = []): { name: string; body: string } => {
    const m = JSON.parse(fixtureText('002-permanent-fault.json')) as { device_data: Record<string, unknown>; events: Record<string, unknown>[] };
    m.device_data.IMEINumber = IMEI[name];
    m.device_data.date = new Date(base + minutes * 60_000).toISOString();
    m.device_data.Ongoing_fault = fault;
    m.events = events.map((e) => ({ EventID: 1000 + seq++, EventTimestamp: new Date(base + e.atMin * 60_000).toISOString(), EventType: e.type, PrefaultCurrent: 140, FaultCurrent: 812, RecoverCurrent: 0 }));
    return { name: `${name}-${seq++}.json`, body: JSON.stringify(m) };
  };
}

/**
 * The portal suites' database: the demo organisations, the feeder's topology, a quiet check-in of every device
 * half an hour ago, then a permanent fault on H, T1 and LA1 through the real pipeline, and the incident worker
 * run once. Returns the incident's id (lateral A located). `topology`: the feeder's import file, when a suite
 * renames its parts (default topologyFile()).
 */
export async function seedLateralAFault(pool: pg.Pool, topology = topologyFile()): Promise<number> {
  await importDemoData(pool);
  await importReferenceData(pool, topology);
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, pool);
  const checkIn = checkInAt(Date.now() - 30 * 60_000);
  try {
    for (const n of Object.keys(IMEI) as Name[]) await pipe.feed([checkIn(n, 0, 0)]);
    for (const n of ['H', 'T1', 'LA1'] as Name[]) await pipe.feed([checkIn(n, 10, 4, [{ type: 'PFault', atMin: 9.5 }])]);
    await pipe.drain();
  } finally {
    await pipe.stop();
    await transport.close();
  }
  await startIncidentWorker({ pool }, { loop: false }).runOnce();
  return Number((await pool.query<{ id: string }>('select id from incidents')).rows[0]!.id);
}
