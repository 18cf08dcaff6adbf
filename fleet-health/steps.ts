// The fleet worker's steps, in the order they run (docs/decisions.md#fleet-worker): each reads what the one before
// committed. A step is added here in one line; what it needs from the settings comes in FleetStepSettings.
import { assessHealth } from './assess.js';
import { assessDrift } from './drift.js';
import { triageSilence } from './triage.js';
import type { FleetStep } from './worker.js';

export interface FleetStepSettings {
  /** CHECKIN_INTERVAL_FLOOR_MINUTES in seconds (expected check-ins, domain/checkin-clock.ts). */
  checkinFloorS: number;
  /** OFFLINE_AFTER_HOURS: the ceiling of the communication-lost rule that says a device is silent. */
  offlineAfterHours: number;
  /** SILENCE_LAG_BOUND_MINUTES in seconds: silence judged at the pipeline's progress, at most this behind now; absent: at now. */
  silenceLagBoundS?: number;
}

export function fleetSteps(s: FleetStepSettings): FleetStep[] {
  return [
    { name: 'assess', run: (client, now) => assessHealth(client, now, { floorS: s.checkinFloorS }) },
    { name: 'triage', run: (client, now) => triageSilence(client, now, { floorS: s.checkinFloorS, ceilingS: s.offlineAfterHours * 3600, lagBoundS: s.silenceLagBoundS ?? 0 }) },
    { name: 'drift', run: (client, now) => assessDrift(client, now) },
  ];
}
