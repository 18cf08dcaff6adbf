// What one stored check-in does to a device's alarms (pure; alarms/raise.ts writes it): the fault-code kind it
// raises and the fault-code kinds it ends, whether it is a model change, and that it ends a silence.
import { FAULT_CODE_KINDS, kindOfCode } from '../domain/alarm-kinds.js';
import { isReread } from '../plumbing/sources.js';
import type { PersistedCheckIn } from '../schemas/avro/values.js';

export interface CheckInAlarms {
  IMEINumber: string;
  OrganizationID: string;
  PowerLineID: string | null;
  deviceName: string | null;
  /** The check-in's own time (ISO): the episode of what it raises, and "newer than" for what it ends. */
  date: string;
  code: number;
  /** A change of fault-code kind: raise `raise` (if any), end the other fault-code kinds. */
  transition: { raise: string | null; end: string[] } | null;
  modelChange: { oldModel: string; newModel: string } | null;
}

/** Null when the check-in says nothing to alarms: not the message that stored it, a replay, an unknown device. */
export function checkInAlarms(m: PersistedCheckIn): CheckInAlarms | null {
  if (!m.ownsRecord || isReread(m.source) || m.device === null) return null;
  const now = kindOfCode(m.ActualOngoingFault);
  const before = kindOfCode(m.previousActualOngoingFault);
  const changed = m.previousActualOngoingFault === null ? now !== null : now !== before;
  return {
    IMEINumber: m.device.IMEINumber, OrganizationID: m.device.OrganizationID, PowerLineID: m.device.PowerLineID,
    deviceName: m.CurrentName ?? m.device.Real_Name, date: new Date(m.checkIn.device_data.date).toISOString(), code: m.ActualOngoingFault,
    transition: changed ? { raise: now, end: FAULT_CODE_KINDS.filter((k) => k !== now) } : null,
    modelChange: m.alert,
  };
}
