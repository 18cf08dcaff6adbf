// What the chatter suites share (and chatter-crash.test.ts's child process): the router's alarm settings (no cap
// and no storm, so every change is one message per recipient) and the check-in the notify stage hands the alarms.
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { loadAlarmSettings } from '../../../config/settings.js';
import { FAULT_CODE_KINDS, kindOfCode } from '../../../domain/alarm-kinds.js';

export const ROUTE_SETTINGS = loadAlarmSettings({ ALARM_RECIPIENT_CAP_PER_DAY: '1000', ALARM_STORM_THRESHOLD: '1000' });

/** A check-in of `imei` at device time `atMs` with fault `code`: its kind raised, every other fault-code kind ended. */
export function faultCheckIn(imei: string, org: string, line: string, atMs: number, code: number): CheckInAlarms {
  const kind = kindOfCode(code);
  return {
    IMEINumber: imei, OrganizationID: org, PowerLineID: line, deviceName: null, date: new Date(atMs).toISOString(), code,
    transition: { raise: kind, end: FAULT_CODE_KINDS.filter((k) => k !== kind) }, modelChange: null,
  };
}
