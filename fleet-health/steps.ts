// The fleet worker's steps, in the order they run (docs/decisions.md#fleet-worker): each reads what the one before
// committed. A step is added here in one line; what it needs from the settings comes in FleetStepSettings.
import { assessHealth } from './assess.js';
import { assessDrift } from './drift.js';
import type { FleetStep } from './worker.js';

export interface FleetStepSettings {
  /** CHECKIN_INTERVAL_FLOOR_MINUTES in seconds (expected check-ins, domain/checkin-clock.ts). */
  checkinFloorS: number;
}

export function fleetSteps(s: FleetStepSettings): FleetStep[] {
  return [
    { name: 'assess', run: (client, now) => assessHealth(client, now, { floorS: s.checkinFloorS }) },
    { name: 'drift', run: (client, now) => assessDrift(client, now) },
  ];
}
