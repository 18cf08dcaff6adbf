// The test feeder of the incident suites (pipeline, portal): power line north-F9 with an imported topology,
// and check-ins of the shipped fixture's shape with a chosen fault and events.
import { fixtureText } from '../../../support/checkins.js';

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
