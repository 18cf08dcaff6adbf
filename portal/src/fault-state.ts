// How the portal groups and colours a device's state. The fault strings are the API's (masked organisations
// send only None / Fault); "Communication lost" is the portal's reading of the API's `Offline` (no check-in
// within two of the device's learned intervals, at most OFFLINE_AFTER_HOURS: the rule of DNP3 and the alarms)
// or of the Disconnected / No Data codes.
import { ONGOING_FAULT_TEXT } from '../../domain/ongoing-fault-codes';
import { MASKED_FAULT, MASKED_NONE } from '../../domain/fault-masking';

export const COMM_LOST = 'Communication lost';
export const NO_CHECKIN = 'No check-in yet';

// Every colour carries white cluster labels at 4.5:1 or better (WCAG AA for small text).
const COLOURS: Record<string, string> = {
  None: '#1a7f37',
  Fault: '#c62828',
  Permanent: '#b71c1c',
  Temporary: '#c43e00',
  Decision: '#ad1457',
  'Over Current': '#5d4037',
  'Over Current No Local Fault': '#00695c',
  'Current Reset': '#6a1b9a',
  'Probable Temp Fault': '#0d47a1',
  'DM1 Port 1 Fault': '#880e4f',
  'DM1 Port 2 Fault': '#880e4f',
  'DM1 Port 3 Fault': '#880e4f',
  'Low Battery': '#8a6d00',
  [COMM_LOST]: '#455a64',
  [NO_CHECKIN]: '#546e7a',
};

export function stateColour(state: string): string {
  return COLOURS[state] ?? '#c62828';
}

/** Rank for "worst first" (cluster colour, legend order): faults, then communication, then healthy. */
export function stateRank(state: string): number {
  if (state === 'None') return 0;
  if (state === NO_CHECKIN) return 1;
  if (state === 'Low Battery') return 2;
  if (state === COMM_LOST) return 3;
  return 4;
}

/**
 * The state a device is shown in. A reported fault wins over a silent device (the fault is what the crew
 * must see; the popup says the device is also silent); a silent healthy device is "Communication lost".
 */
export function deviceState(fault: string | null, lastCheckIn: string | null, offline: boolean): string {
  if (lastCheckIn === null || fault === null) return NO_CHECKIN;
  if (fault === 'Disconnected' || fault === 'No Data') return COMM_LOST;
  if (stateRank(fault) < 4 && offline) return COMM_LOST;
  return fault;
}

/** BatteryOrLine as sent, with spec 2.2's meaning when it is the bare code (0 = Line, 1 = Battery). */
export function powerText(v: string | number | null): string | null {
  if (v === null) return null;
  if (v === 0 || v === '0') return 'Line (0)';
  if (v === 1 || v === '1') return 'Battery (1)';
  return String(v);
}

/** Every fault state the API can send for this organisation: the spec 3.1 strings, or None / Fault when masked. */
export function faultStateChoices(masked: boolean): string[] {
  return masked ? [MASKED_NONE, MASKED_FAULT] : [...new Set(ONGOING_FAULT_TEXT.values())];
}
