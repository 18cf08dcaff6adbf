// Response shapes of the device-records interface as the portal reads them (api/openapi/ documents them;
// the portal only names the fields it shows). Fault strings are whatever the API returns, masked or not.
export interface Page<T> { data: T[]; page: number; limit: number; total: number }

export interface MapDevice {
  IMEINumber: string;
  Real_Name: string | null;
  Lat: number | null;
  Long: number | null;
  PowerLineID: string | null;
  PowerLineName: string | null;
  ActualOngoingFault: string | null;
  BatteryOrLine: string | number | null;
  LastCheckInTime: string | null;
  /** Communication lost by the server's one rule (two learned check-in intervals, at most OFFLINE_AFTER_HOURS). */
  Offline: boolean;
}

/** An event as the API presents it (spec 3.4 applied), in both the critical list and a device's events. */
export interface PresentedEvent {
  EventID: number | null;
  EventTimestamp: string | null;
  EventType: string;
  PrefaultCurrent: number | null;
  FaultCurrent: number | '' | null;
  RecoverCurrent: number | '' | null;
  PhaseAEvent: string | null;
  PhaseBEvent: string | null;
  PhaseCEvent: string | null;
  PermanentFaultResetCurrentThreshold: number | null;
  PostEventRef: string | null;
  PacketTimestamp: string | null;
}

export interface CriticalEvent extends PresentedEvent {
  Source: string;
  SourceID: number | string;
  IMEINumber: string;
  oldModel: string | null;
  newModel: string | null;
  Real_Name: string | null;
  PowerLineID: string | null;
  PowerLineName: string | null;
  Ongoing_fault: string | null;
  ActualOngoingFault: string | null;
}

export type DeviceRecord = Record<string, string | number | boolean | null> & { RecordID: number; IMEINumber: string; date: string };

export interface Device {
  DeviceID: number;
  IMEINumber: string;
  Real_Name: string | null;
  Lat: number | null;
  Long: number | null;
  LastCheckInTime: string | null;
  PowerLineID: string | null;
  PowerLineName: string | null;
  serialNumber: string | null;
  groups: string[] | null;
  date: string | null;
  model: string | null;
  Ongoing_fault: string | null;
  ActualOngoingFault: string | null;
  BatteryOrLine: string | number | null;
  BatteryMCU: number | null;
  AverageCurrent1m: number | null;
  Temperature: number | null;
  rssi: number | null;
}

export interface DeviceSummary {
  totalDevices: number;
  online: number;
  offline: number;
  neverCheckedIn: number;
  lowBattery: number;
  offlineAfterHours: number;
  byActualOngoingFault: { ActualOngoingFault: string; count: number }[];
}

export interface DeviceInformation extends Omit<Device, 'date' | 'model' | 'Ongoing_fault' | 'ActualOngoingFault' | 'BatteryOrLine' | 'BatteryMCU' | 'AverageCurrent1m' | 'Temperature' | 'rssi'> {
  OrganizationID: string;
  latestRecord: DeviceRecord | null;
}

export interface DeviceEvent extends PresentedEvent {
  EventTable: string;
  Event_Record_ID: number;
}

export type LoadHistoryRow = Record<string, string | number | null> & { PacketTimestamp: string; PeakCurrent: number | null };

/** GET /api/test-faults (admin): a test fault and its delivery timeline (docs/commissioning.md#test-faults). */
export interface TestFault {
  id: number;
  IMEINumber: string;
  startedBy: string;
  startedAt: string;
  clearDueAt: string;
  clearSentAt: string | null;
  expects: { dnp3: boolean; iec104: boolean; oms: boolean };
  complete: boolean;
  timeline: { phase: 'fault' | 'clear'; step: string; text: string; at: string; sinceQueuedMs: number | null; sinceStepBeforeMs: number | null; detail: Record<string, unknown> }[];
}
