// An incident's story in a consistent order. Its times come from two clocks: trips are the indicators' own
// event times (device clock), while opened, located, restored and closed are when the incident worker
// decided them (service clock; incidents/step.ts). Sorted together, a device clock running ahead put
// "restored" before the first trip. So the first trip always comes first (it is what opened the incident),
// then the worker's steps in the order it recorded them, each time labelled with its clock, and a clock
// difference is said rather than hidden. Pure, so it is tested without a browser.
import type { ClockOwner } from './time.js';

export interface IncidentStep { at: string; clock: ClockOwner; what: string }

export function incidentSteps(i: { firstTripAt: string; timeline: { at: string; what: string }[] }): { steps: IncidentStep[]; deviceAheadMs: number } {
  const steps: IncidentStep[] = [{ at: i.firstTripAt, clock: 'device', what: 'first trip' }];
  for (const t of i.timeline) steps.push({ at: t.at, clock: 'service', what: t.what });
  const firstService = i.timeline[0] ? Date.parse(i.timeline[0].at) : null;
  const deviceAheadMs = firstService !== null ? Math.max(0, Date.parse(i.firstTripAt) - firstService) : 0;
  return { steps, deviceAheadMs };
}
