// What the fleet crash suite and its child process share: the steps' settings (the offline rule's floor and
// ceiling as the triage suite judges them).
import type { FleetStepSettings } from '../../../fleet-health/steps.js';

export const FLEET_STEP_SETTINGS: FleetStepSettings = { checkinFloorS: 300, offlineAfterHours: 26 };
