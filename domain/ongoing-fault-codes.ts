// Ongoing fault codes (spec 3.1) and their API strings (docs/decisions.md#codes-to-strings), plus the
// BatteryOrLine strings of spec 2.2. One table each, so API, DNP3 JSON output and MultiSpeak agree.

/** Spec 3.1, names and codes. Used for both Ongoing_fault and ActualOngoingFault. */
export const ONGOING_FAULT = {
  NONE: 0,
  DECISION: 1,
  TEMPORARY: 2,
  OVER_CURRENT_NO_LOCAL_FAULT: 3,
  PERMANENT: 4,
  PERMANENT_ALT: 5,
  OVER_CURRENT: 6,
  CURRENT_RESET: 10,
  PROBABLE_TEMP_FAULT: 11,
  DM1_PORT_1_FAULT: 21,
  DM1_PORT_2_FAULT: 22,
  DM1_PORT_3_FAULT: 23,
  DISCONNECTED: 400,
  NO_DATA: 401,
  LOW_BATTERY: 402,
} as const;

export type OngoingFaultName = keyof typeof ONGOING_FAULT;
export type OngoingFaultCode = (typeof ONGOING_FAULT)[OngoingFaultName];

/**
 * The classes of ActualOngoingFault codes (docs/decisions.md#fault-facts): the one table the DNP3 binaries,
 * the alarm kinds and the 104 points read. Code 11 is temporary: spec 3.2 turns a reported permanent fault
 * into it when the line was already dead before, i.e. the fault cleared itself.
 */
export const FAULT_CODE_CLASSES = {
  permanent: [ONGOING_FAULT.PERMANENT, ONGOING_FAULT.PERMANENT_ALT],
  temporary: [ONGOING_FAULT.TEMPORARY, ONGOING_FAULT.PROBABLE_TEMP_FAULT],
  overCurrent: [ONGOING_FAULT.OVER_CURRENT, ONGOING_FAULT.OVER_CURRENT_NO_LOCAL_FAULT],
  currentReset: [ONGOING_FAULT.CURRENT_RESET],
  dm1PortFault: [ONGOING_FAULT.DM1_PORT_1_FAULT, ONGOING_FAULT.DM1_PORT_2_FAULT, ONGOING_FAULT.DM1_PORT_3_FAULT],
  lowBattery: [ONGOING_FAULT.LOW_BATTERY],
  noCommunication: [ONGOING_FAULT.DISCONNECTED, ONGOING_FAULT.NO_DATA],
} as const satisfies Record<string, readonly OngoingFaultCode[]>;

export type FaultCodeClass = keyof typeof FAULT_CODE_CLASSES;

/** Whether `code` is of `cls` (null, the device never reported: no). */
export function inCodeClass(cls: FaultCodeClass, code: number | null): boolean {
  return code !== null && (FAULT_CODE_CLASSES[cls] as readonly number[]).includes(code);
}

/** docs/decisions.md#codes-to-strings; codes 0 and 4 are the spec's own (3.1). */
export const ONGOING_FAULT_TEXT: ReadonlyMap<number, string> = new Map<OngoingFaultCode, string>([
  [0, 'None'],
  [1, 'Decision'],
  [2, 'Temporary'],
  [3, 'Over Current No Local Fault'],
  [4, 'Permanent'],
  [5, 'Permanent'],
  [6, 'Over Current'],
  [10, 'Current Reset'],
  [11, 'Probable Temp Fault'],
  [21, 'DM1 Port 1 Fault'],
  [22, 'DM1 Port 2 Fault'],
  [23, 'DM1 Port 3 Fault'],
  [400, 'Disconnected'],
  [401, 'No Data'],
  [402, 'Low Battery'],
]);

/** Any code outside a table: `Unknown (<code>)`, never an exception (a new firmware code must not 500). */
export function unknownCodeText(code: number): string {
  return `Unknown (${code})`;
}

/** The API / DNP3 JSON string of an ongoing fault code. */
export function ongoingFaultText(code: number): string {
  return ONGOING_FAULT_TEXT.get(code) ?? unknownCodeText(code);
}

/** The name of spec 3.1 for a code, or null (for logs and metrics labels). */
export function ongoingFaultName(code: number): OngoingFaultName | null {
  for (const [name, value] of Object.entries(ONGOING_FAULT)) if (value === code) return name as OngoingFaultName;
  return null;
}

/** Spec 2.2: BatteryOrLine 0 = Line, 1 = Battery (the DNP3 JSON output writes these strings). */
export const BATTERY_OR_LINE_TEXT: ReadonlyMap<number, string> = new Map([
  [0, 'Line'],
  [1, 'Battery'],
]);

export function batteryOrLineText(code: number): string {
  return BATTERY_OR_LINE_TEXT.get(code) ?? unknownCodeText(code);
}
