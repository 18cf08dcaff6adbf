// Queue-message validation (spec 2.1 to 2.4, 6.1 step 1): the edge where an SQS body (unknown text) becomes
// a CheckIn. Everything after this trusts the types in checkin.ts, so everything is checked here, once.
//
// Decisions (the spec is silent; see the README):
// - Result, not exception: `{ok: true, value, imei} | {ok: false, code, reason, issues, imei?}`. The bridge
//   dead-letters failures with `code` and `reason`; parseQueueMessageOrThrow is there for throwing callers.
// - The body is measured before parsing (UTF-8 bytes, default limit 1 MiB) and refused as TOO_LARGE unread.
// - Not JSON, or a root that is not an object: MALFORMED. Everything else wrong: INVALID, with every problem
//   found (up to 20) in `issues` and joined by "; " in `reason`, each naming the field path.
// - Only known fields are copied, into fresh objects, read with Object.hasOwn: `__proto__`, `constructor`
//   and unknown extra fields are ignored and can pollute nothing.
// - Tolerance for sloppy firmware (option `numericStrings`, default on): a number field may come as a
//   decimal string ("3.61", " -71 "), and an empty string there counts as missing; a string field may come
//   as a finite number (Tempfault_Reset_Hours: 2 -> "2"). "0x10", "NaN", "Infinity", booleans, objects
//   stay INVALID. Missing or null optional fields become null.
// - IMEINumber: a string of 14 to 16 ASCII digits (IMEI 15, IMEISV 16, some modems drop the check digit:
//   14). A number is refused: it loses leading zeros. No trimming: it is the key of everything.
// - Ongoing_fault is required (an integer >= 0): defaulting a missing one to NONE could hide a fault (3.2).
// - Timestamps need `Z` or an offset (option `naiveTimestamps`), are normalised to UTC with milliseconds,
//   and must not be before 2000-01-01T00:00:00Z (a device with an unset clock). When the caller passes
//   `now` (the receive time; the domain reads no clock), a timestamp more than `maxFutureMs` (default 24 h)
//   after it is refused too. Without `now` there is no upper bound. This applies to device_data.date,
//   every EventTimestamp and currents.PeakCurrentTimestamp.
// - events missing or null: no events (a plain check-in); present but not an array: INVALID.
//   EventID is an integer >= 0; EventType a non-empty string, kept exactly as sent.
// - currents missing, null, or with none of its fields set (HourlyAverages [] counts as unset): null, so no
//   device-currents row. Otherwise HourlyAverages must be exactly 24 finite numbers (spec 8).
// - dm1_device missing or null: false (standard event table); otherwise it must be a boolean.
// - test_fault missing or null: a real check-in. Otherwise {id: positive integer, phase: "fault" | "clear"}
//   (a test fault's synthetic check-in, docs/decisions.md#test-faults); enrich checks that the id names a test
//   fault started for this device.
// - `imei` on a failure: device_data.IMEINumber when it is a valid IMEI; for MALFORMED bodies a best-effort
//   scan of the raw text for `"IMEINumber": "<digits>"`, so a truncated message still keys its dead letter.
import type { Temporal } from 'temporal-polyfill';
import type { CheckIn, Currents, DeviceData, DeviceEvent } from './checkin.js';
import { DEVICE_NUMBER_FIELDS, DEVICE_STRING_FIELDS, HOURLY_AVERAGE_COUNT, isTestFaultMark } from './checkin.js';
import { RejectionError, type RejectionCode } from './errors.js';
import { formatUtc, parseTimestamp, type NaiveTimestampPolicy } from './utc-timestamp.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;
export const DEFAULT_MAX_FUTURE_MS = 24 * 60 * 60 * 1000;
/** Earliest accepted timestamp: devices with an unset real-time clock report 1970 or 1999. */
export const EARLIEST_TIMESTAMP = '2000-01-01T00:00:00.000Z';
const EARLIEST_MS = Date.UTC(2000, 0, 1);
const MAX_ISSUES = 20;

export interface ParseOptions {
  /** Largest accepted body in UTF-8 bytes. Default 1 MiB. */
  maxBytes?: number;
  /** Receive time. When given, timestamps more than maxFutureMs after it are INVALID. */
  now?: Temporal.Instant;
  /** Default 24 h. */
  maxFutureMs?: number;
  /** Accept decimal strings for number fields and numbers for string fields. Default true. */
  numericStrings?: boolean;
  /** Timestamps without an offset: refuse (default) or read as UTC. */
  naiveTimestamps?: NaiveTimestampPolicy;
}

export type ParseResult =
  | { ok: true; value: CheckIn; imei: string }
  | { ok: false; code: RejectionCode; reason: string; issues: string[]; imei?: string };

const IMEI_PATTERN = /^[0-9]{14,16}$/;
// PostgreSQL text cannot hold U+0000: a string carrying it could never be stored, and would fail its
// whole batch on every redelivery. It is refused here, with the field named.
const hasNul = (s: string) => s.includes('\u0000');
const NUL_ISSUE = 'contains a NUL character (U+0000), which cannot be stored';
/** Plain decimal with optional exponent; no hex, no NaN/Infinity, surrounding blanks allowed. */
const DECIMAL_PATTERN = /^\s*[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\s*$/;
const IMEI_SCAN = /"IMEINumber"\s*:\s*"([0-9]{14,16})"/;

/** A device identifier as stored: 14 to 16 digits. */
export function isImei(value: unknown): value is string {
  return typeof value === 'string' && IMEI_PATTERN.test(value);
}

/**
 * Validates one queue message body.
 *
 * @example
 *   const r = parseQueueMessage(sqsMessage.Body, { now: Temporal.Now.instant() });
 *   if (!r.ok) deadLetter({ key: r.imei, code: r.code, reason: r.reason, body });
 */
export function parseQueueMessage(body: string, options: ParseOptions = {}): ParseResult {
  if (typeof body !== 'string') return fail('MALFORMED', [`body: ${describe(body)} is not text`]);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  // A UTF-16 unit is at most 3 UTF-8 bytes, so short bodies skip the count.
  const size = body.length * 3 > maxBytes ? utf8Length(body) : 0;
  if (size > maxBytes) return fail('TOO_LARGE', [`body: ${size} bytes is over the ${maxBytes} byte limit`]);
  let root: unknown;
  try {
    root = JSON.parse(body);
  } catch (err) {
    const imei = IMEI_SCAN.exec(body)?.[1];
    return fail('MALFORMED', [`body: not valid JSON (${(err as Error).message})`], imei);
  }
  return validateQueueMessage(root, options);
}

/** Like parseQueueMessage, but throws a RejectionError (code, reason as message, imei). */
export function parseQueueMessageOrThrow(body: string, options: ParseOptions = {}): CheckIn {
  const result = parseQueueMessage(body, options);
  if (result.ok) return result.value;
  throw new RejectionError(result.code, result.reason, result.imei === undefined ? {} : { imei: result.imei });
}

/** Validates an already-parsed JSON value (e.g. a message re-submitted from rejected_messages). */
export function validateQueueMessage(root: unknown, options: ParseOptions = {}): ParseResult {
  if (!isRecord(root)) return fail('MALFORMED', [`body: ${describe(root)} is not a JSON object`]);
  const r = new Reader(options);
  const rawDevice = own(root, 'device_data');
  const imeiValue = isRecord(rawDevice) ? own(rawDevice, 'IMEINumber') : undefined;
  const imei = isImei(imeiValue) ? imeiValue : undefined;

  const device = isRecord(rawDevice) ? readDevice(r, rawDevice) : undefined;
  if (!isRecord(rawDevice)) r.issue('device_data', rawDevice == null ? 'is missing' : `${describe(rawDevice)} is not an object`);
  const events = readEvents(r, own(root, 'events'));
  const currents = readCurrents(r, own(root, 'currents'));
  const dm1 = own(root, 'dm1_device');
  if (dm1 != null && typeof dm1 !== 'boolean') r.issue('dm1_device', `${describe(dm1)} is not true or false`);
  const mark = own(root, 'test_fault');
  if (mark != null && !isTestFaultMark(mark)) r.issue('test_fault', `${describe(mark)} is not {"id": <positive integer>, "phase": "fault" | "clear"}`);

  if (r.issues.length > 0 || !device || imei === undefined) return fail('INVALID', r.issues, imei);
  const value = { device_data: device, events, currents, dm1_device: dm1 === true };
  return { ok: true, imei, value: isTestFaultMark(mark) ? { ...value, test_fault: { id: mark.id, phase: mark.phase } } : value };
}

function readDevice(r: Reader, raw: Record<string, unknown>): DeviceData | undefined {
  const imei = own(raw, 'IMEINumber');
  if (imei == null || imei === '') r.issue('device_data.IMEINumber', 'is missing');
  else if (typeof imei !== 'string') r.issue('device_data.IMEINumber', `${describe(imei)} is not a string`);
  else if (!IMEI_PATTERN.test(imei)) r.issue('device_data.IMEINumber', `${describe(imei)} is not 14 to 16 digits`);
  const date = r.timestamp(raw, 'date', 'device_data.date', true);
  const fault = r.number(raw, 'Ongoing_fault', 'device_data.Ongoing_fault', { required: true, integer: true });
  const out = { IMEINumber: imei, date, Ongoing_fault: fault } as DeviceData;
  for (const key of DEVICE_STRING_FIELDS) out[key] = r.string(raw, key, `device_data.${key}`);
  for (const key of DEVICE_NUMBER_FIELDS) out[key] = r.number(raw, key, `device_data.${key}`);
  return typeof imei === 'string' && date !== null && fault !== null ? out : undefined;
}

function readEvents(r: Reader, raw: unknown): DeviceEvent[] {
  if (raw == null) return [];
  if (!Array.isArray(raw)) {
    r.issue('events', `${describe(raw)} is not an array`);
    return [];
  }
  const events: DeviceEvent[] = [];
  raw.forEach((item: unknown, i) => {
    const path = `events[${i}]`;
    if (!isRecord(item)) return r.issue(path, `${describe(item)} is not an object`);
    const id = r.number(item, 'EventID', `${path}.EventID`, { required: true, integer: true });
    const timestamp = r.timestamp(item, 'EventTimestamp', `${path}.EventTimestamp`, true);
    const type = own(item, 'EventType');
    if (type == null || type === '') r.issue(`${path}.EventType`, 'is missing');
    else if (typeof type !== 'string') r.issue(`${path}.EventType`, `${describe(type)} is not a string`);
    else if (hasNul(type)) r.issue(`${path}.EventType`, NUL_ISSUE);
    const event: DeviceEvent = {
      EventID: id ?? 0,
      EventTimestamp: timestamp ?? '',
      EventType: typeof type === 'string' ? type : '',
      PrefaultCurrent: r.number(item, 'PrefaultCurrent', `${path}.PrefaultCurrent`),
      FaultCurrent: r.number(item, 'FaultCurrent', `${path}.FaultCurrent`),
      RecoverCurrent: r.number(item, 'RecoverCurrent', `${path}.RecoverCurrent`),
      PhaseAEvent: r.string(item, 'PhaseAEvent', `${path}.PhaseAEvent`),
      PhaseBEvent: r.string(item, 'PhaseBEvent', `${path}.PhaseBEvent`),
      PhaseCEvent: r.string(item, 'PhaseCEvent', `${path}.PhaseCEvent`),
    };
    events.push(event);
  });
  return events;
}

function readCurrents(r: Reader, raw: unknown): Currents | null {
  if (raw == null) return null;
  if (!isRecord(raw)) {
    r.issue('currents', `${describe(raw)} is not an object`);
    return null;
  }
  const hourly = own(raw, 'HourlyAverages');
  const hourlyUnset = hourly == null || (Array.isArray(hourly) && hourly.length === 0);
  if (hourlyUnset && own(raw, 'PeakCurrent') == null && own(raw, 'PeakCurrentTimestamp') == null) return null;
  const peak = r.number(raw, 'PeakCurrent', 'currents.PeakCurrent');
  const peakAt = r.timestamp(raw, 'PeakCurrentTimestamp', 'currents.PeakCurrentTimestamp', false);
  const averages: number[] = [];
  if (!Array.isArray(hourly)) {
    r.issue('currents.HourlyAverages', hourly == null ? 'is missing' : `${describe(hourly)} is not an array`);
  } else if (hourly.length !== HOURLY_AVERAGE_COUNT) {
    r.issue('currents.HourlyAverages', `has ${hourly.length} entries, not ${HOURLY_AVERAGE_COUNT}`);
  } else {
    hourly.forEach((value: unknown, i) => {
      const n = r.coerceNumber(value, `currents.HourlyAverages[${i}]`, { required: true });
      if (n !== null) averages.push(n);
    });
  }
  return { PeakCurrent: peak, PeakCurrentTimestamp: peakAt, HourlyAverages: averages };
}

/** Collects issues while reading fields with the configured tolerance. */
class Reader {
  readonly issues: string[] = [];
  private readonly numericStrings: boolean;
  private readonly naive: NaiveTimestampPolicy;
  private readonly latestMs: number;

  constructor(options: ParseOptions) {
    this.numericStrings = options.numericStrings ?? true;
    this.naive = options.naiveTimestamps ?? 'reject';
    this.latestMs = options.now
      ? options.now.epochMilliseconds + (options.maxFutureMs ?? DEFAULT_MAX_FUTURE_MS)
      : Number.POSITIVE_INFINITY;
  }

  issue(path: string, problem: string): void {
    if (this.issues.length < MAX_ISSUES) this.issues.push(`${path}: ${problem}`);
  }

  number(obj: Record<string, unknown>, key: string, path: string, rule: NumberRule = {}): number | null {
    return this.coerceNumber(own(obj, key), path, rule);
  }

  coerceNumber(value: unknown, path: string, rule: NumberRule = {}): number | null {
    let n: number;
    if (typeof value === 'number') n = value;
    else if (typeof value === 'string' && this.numericStrings && DECIMAL_PATTERN.test(value)) n = Number(value);
    else if (value == null || (typeof value === 'string' && this.numericStrings && value.trim() === '')) {
      if (rule.required) this.issue(path, 'is missing');
      return null;
    } else {
      this.issue(path, `${describe(value)} is not a number`);
      return null;
    }
    if (!Number.isFinite(n)) this.issue(path, `${describe(value)} is not a finite number`);
    else if (rule.integer && (!Number.isSafeInteger(n) || n < 0)) this.issue(path, `${describe(value)} is not an integer >= 0`);
    else return n;
    return null;
  }

  string(obj: Record<string, unknown>, key: string, path: string): string | null {
    const value = own(obj, key);
    if (value == null) return null;
    if (typeof value === 'string') return hasNul(value) ? (this.issue(path, NUL_ISSUE), null) : value;
    if (typeof value === 'number' && this.numericStrings && Number.isFinite(value)) return String(value);
    this.issue(path, `${describe(value)} is not a string`);
    return null;
  }

  timestamp(obj: Record<string, unknown>, key: string, path: string, required: boolean): string | null {
    const value = own(obj, key);
    if (value == null || value === '') {
      if (required) this.issue(path, 'is missing');
      return null;
    }
    const instant = typeof value === 'string' ? parseTimestamp(value, this.naive) : null;
    if (!instant) this.issue(path, `${describe(value)} is not an ISO 8601 timestamp with Z or an offset`);
    else if (instant.epochMilliseconds < EARLIEST_MS) this.issue(path, `${describe(value)} is before ${EARLIEST_TIMESTAMP}`);
    else if (instant.epochMilliseconds > this.latestMs) this.issue(path, `${describe(value)} is too far in the future`);
    else return formatUtc(instant);
    return null;
  }
}

interface NumberRule { required?: boolean; integer?: boolean }

function fail(code: RejectionCode, issues: string[], imei?: string): ParseResult {
  const list = issues.length > 0 ? issues : ['device_data: is invalid'];
  const result: ParseResult = { ok: false, code, reason: list.join('; '), issues: list };
  if (imei !== undefined) result.imei = imei;
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own properties only: `constructor`, `toString` and friends are never read from the prototype. */
function own(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** A value as it appears in a reason: strings quoted and cut at 60 characters, containers by kind. */
function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value);
  return String(value);
}

/** UTF-8 size of a JS string (no Buffer: domain/ imports no node:*); a lone surrogate counts 3 (U+FFFD). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) { bytes += 4; i++; } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
