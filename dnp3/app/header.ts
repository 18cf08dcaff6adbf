// Application control octet, function codes and internal indications.
import { Dnp3Error } from '../errors.js';

export interface AppControl {
  fir: boolean;
  fin: boolean;
  con: boolean;
  uns: boolean;
  seq: number;
}

/**
 * The fields of the application control octet (IEEE 1815 4.2.2.4): first and final fragment of a message,
 * confirmation wanted, unsolicited, and the sequence number in the low four bits.
 */
export const AppControlField = { FIR: 0x80, FIN: 0x40, CON: 0x20, UNS: 0x10, SEQ: 0x0f } as const;

export function parseControl(b: number): AppControl {
  const F = AppControlField;
  return { fir: (b & F.FIR) !== 0, fin: (b & F.FIN) !== 0, con: (b & F.CON) !== 0, uns: (b & F.UNS) !== 0, seq: b & F.SEQ };
}

export function encodeControl(c: AppControl): number {
  const F = AppControlField;
  return (c.fir ? F.FIR : 0) | (c.fin ? F.FIN : 0) | (c.con ? F.CON : 0) | (c.uns ? F.UNS : 0) | (c.seq & F.SEQ);
}

/** The sequence number `step` after `seq`: 0..15, wrapping. */
export const nextSeq = (seq: number, step = 1): number => (seq + step) & AppControlField.SEQ;

/** Whether an application fragment (its first octet the control octet) asks to be confirmed. */
export const wantsConfirm = (fragment: Uint8Array): boolean => parseControl(fragment[0]!).con;

export const FunctionCode = {
  CONFIRM: 0x00,
  READ: 0x01,
  WRITE: 0x02,
  SELECT: 0x03,
  OPERATE: 0x04,
  DIRECT_OPERATE: 0x05,
  DIRECT_OPERATE_NR: 0x06,
  COLD_RESTART: 0x0d,
  WARM_RESTART: 0x0e,
  ENABLE_UNSOLICITED: 0x14,
  DISABLE_UNSOLICITED: 0x15,
  DELAY_MEASURE: 0x17,
  RECORD_CURRENT_TIME: 0x18,
  RESPONSE: 0x81,
  UNSOLICITED_RESPONSE: 0x82,
} as const;

/** IIN1 in the high octet, IIN2 in the low one, as Wireshark shows `dnp3.al.iin`. */
export const Iin = {
  BROADCAST: 0x0100,
  CLASS_1_EVENTS: 0x0200,
  CLASS_2_EVENTS: 0x0400,
  CLASS_3_EVENTS: 0x0800,
  NEED_TIME: 0x1000,
  LOCAL_CONTROL: 0x2000,
  DEVICE_TROUBLE: 0x4000,
  DEVICE_RESTART: 0x8000,
  NO_FUNC_CODE_SUPPORT: 0x0001,
  OBJECT_UNKNOWN: 0x0002,
  PARAMETER_ERROR: 0x0004,
  EVENT_BUFFER_OVERFLOW: 0x0008,
  ALREADY_EXECUTING: 0x0010,
  CONFIG_CORRUPT: 0x0020,
} as const;

/** g80v1 index (0..15, IIN1.0 first) to the Iin bit. */
export function iinBitForIndex(index: number): number {
  return index < 8 ? 0x0100 << index : 1 << (index - 8);
}

export interface Request {
  control: AppControl;
  func: number;
  /** Object headers and data after the function code. */
  body: Uint8Array;
}

export function parseRequest(fragment: Uint8Array): Request {
  if (fragment.length < 2) throw new Dnp3Error('app', 'APP_TRUNCATED', 'request header');
  return { control: parseControl(fragment[0]!), func: fragment[1]!, body: fragment.subarray(2) };
}

export interface Response {
  control: AppControl;
  func: number;
  iin: number;
  body: Uint8Array;
}

export function parseResponse(fragment: Uint8Array): Response {
  if (fragment.length < 4) throw new Dnp3Error('app', 'APP_TRUNCATED', 'response header');
  return { control: parseControl(fragment[0]!), func: fragment[1]!, iin: (fragment[2]! << 8) | fragment[3]!, body: fragment.subarray(4) };
}
