// JSON Schemas (OpenAPI 3.1 = JSON Schema 2020-12) of every body the API sends or takes. Response schemas
// are closed (additionalProperties: false, every key required) so schemathesis flags any drift between a
// handler and this document.
import { API_ERRORS } from '../errors.js';
import type { RECORD_COLUMNS } from '../device-records/present.js';
import { HOURLY_COLUMNS } from '../device-records/load-history.js';
import { FLEET_SCHEMAS } from '../fleet/schemas.js';

type Schema = Record<string, unknown>;

const orNull = (type: string): Schema => ({ type: [type, 'null'] });
const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const num: Schema = { type: 'number' };
/** `YYYY-MMM-DD hh:mm A` in the caller's zone (spec 4.2). */
const displayTime: Schema = {
  type: 'string', pattern: '^\\d{4}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\\d{2} (0[1-9]|1[0-2]):[0-5]\\d(:[0-5]\\d)? (AM|PM)$',
  description: '`YYYY-MMM-DD hh:mm A` in the caller\'s zone; with the request header `X-Time-Precision: seconds`, `YYYY-MMM-DD hh:mm:ss A`.',
};
const displayTimeOrNull: Schema = { oneOf: [displayTime, { type: 'null' }] };
/** Spec 3.4 "cleared (empty)": the empty string. */
const currentOrCleared: Schema = { oneOf: [orNull('number'), { const: '' }] };

function closed(properties: Record<string, Schema>, description?: string): Schema {
  return { type: 'object', ...(description ? { description } : {}), properties, required: Object.keys(properties), additionalProperties: false };
}

const RECORD_TYPES: Record<(typeof RECORD_COLUMNS)[number], Schema> = {
  RecordID: int, IMEINumber: str, model: orNull('string'), version: orNull('string'), date: displayTime,
  rssi: orNull('number'), current_status: orNull('number'), master: orNull('number'), statusPacket: orNull('string'), eventPacket: orNull('string'),
  LEDDuration: orNull('number'), LEDTimer: orNull('number'), BatteryMCU: orNull('number'), BatteryLED: orNull('number'),
  State: orNull('string'), FaultType: orNull('string'), BatteryOrLine: orNull('number'), FastMode: orNull('number'), Calibrated: orNull('number'),
  AverageCurrent1m: orNull('number'), PrefaultCurrent: orNull('number'), AverageCurrent1h: orNull('number'), PeakCurrent24h: orNull('number'),
  Tempfault_Reset_Hours: orNull('string'), Permfault_Reset_Hours: orNull('number'), SOTF: orNull('number'), Brightness: orNull('string'),
  Current_Reset: orNull('string'), Block_Reset: orNull('number'), Ongoing_fault: str, channel: orNull('number'), gps_long: orNull('number'),
  gps_lat: orNull('number'), Program: orNull('string'), ConnectTime: orNull('number'), Temperature: orNull('number'), ActualOngoingFault: str,
  CurrentName: orNull('string'), CurrentLat: orNull('number'), CurrentLong: orNull('number'), CreatedDate: displayTime,
  TestFaultID: { ...orNull('integer'), description: 'set only on the synthetic check-ins of a test fault (POST /api/test-faults): not a real fault' },
};

const EVENT_FIELDS: Record<string, Schema> = {
  EventID: int, EventTimestamp: displayTime, EventType: str, PrefaultCurrent: orNull('number'), FaultCurrent: currentOrCleared,
  RecoverCurrent: currentOrCleared, PhaseAEvent: orNull('string'), PhaseBEvent: orNull('string'), PhaseCEvent: orNull('string'),
  PacketTimestamp: displayTime, IMEINumber: str, DeviceRecordID: int,
  PermanentFaultResetCurrentThreshold: orNull('number'), PostEventRef: orNull('string'),
};

const DEVICE_FIELDS: Record<string, Schema> = {
  DeviceID: int, IMEINumber: str, Real_Name: orNull('string'), Lat: orNull('number'), Long: orNull('number'),
  LastCheckInTime: displayTimeOrNull, OrganizationID: str, PowerLineID: orNull('string'), PowerLineName: orNull('string'),
  serialNumber: orNull('string'), groups: { type: 'array', items: str },
};

const error: Schema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { enum: Object.keys(API_ERRORS) }, message: str, details: { type: 'object' } },
      required: ['code', 'message'],
      additionalProperties: false,
    },
  },
  required: ['error'],
  additionalProperties: false,
};

export const COMPONENT_SCHEMAS: Record<string, Schema> = {
  Error: error,
  // No maxLength here: the whole body is capped (413) before fields are read, so a schema-level length
  // would promise a 400 that an oversized body never gets. The 1,024-character field cap is a 400.
  LoginRequest: {
    type: 'object',
    description: 'At most 4 KiB of JSON; email and password are non-empty strings of at most 1,024 characters.',
    properties: { email: { type: 'string', minLength: 1 }, password: { type: 'string', minLength: 1 } },
    required: ['email', 'password'],
  },
  LoginResponse: closed({
    accessToken: { type: 'string', description: 'JWT (HS256), valid 24 hours; send as Authorization: Bearer <token>.' },
    maskFaultDetails: { type: 'boolean', description: 'The organisation masks fault details (spec 3.5): the device-records interface answers None / Fault and refuses filters and sort keys that would reveal the fault class.' },
  }),
  OrganizationDevice: closed({
    IMEINumber: str, Real_Name: orNull('string'), Lat: orNull('number'), Long: orNull('number'), PowerLineID: orNull('string'),
    PowerLineName: orNull('string'), serialNumber: orNull('string'), dnp3QueueAddress: orNull('string'),
    dnp3Slot: { type: ['integer', 'null'], description: 'DNP3 point slot (points 8*slot+k); null until the DNP3 outstation assigns slots.' },
    LastCheckInTime: { type: ['string', 'null'], format: 'date-time', description: 'ISO 8601 UTC.' },
    ActualOngoingFault: { type: ['integer', 'null'], description: 'Spec 3.1 code of the latest check-in; null when the organisation masks fault details or before the first check-in.' },
    ActualOngoingFaultText: orNull('string'),
    BatteryOrLine: { enum: ['Line', 'Battery', null], type: ['string', 'null'] },
  }),
  DeviceRecord: closed(RECORD_TYPES),
  Event: closed({ EventTable: { enum: ['standard', 'dm1'] }, Event_Record_ID: int, ...EVENT_FIELDS }),
  CriticalEvent: closed({
    Source: { enum: ['event', 'dm1_event', 'model_change'] }, SourceID: int, ...EVENT_FIELDS,
    EventID: orNull('integer'), DeviceRecordID: orNull('integer'), oldModel: orNull('string'), newModel: orNull('string'),
    Real_Name: orNull('string'), Lat: orNull('number'), Long: orNull('number'), PowerLineID: orNull('string'), PowerLineName: orNull('string'),
    Ongoing_fault: orNull('string'), ActualOngoingFault: orNull('string'),
  }),
  MapDevice: closed({
    IMEINumber: str, Real_Name: orNull('string'), Lat: orNull('number'), Long: orNull('number'), PowerLineID: orNull('string'),
    PowerLineName: orNull('string'), ActualOngoingFault: orNull('string'), BatteryOrLine: orNull('number'), LastCheckInTime: displayTimeOrNull,
    Offline: { type: 'boolean', description: 'Checked in, but not within two of its learned check-in intervals (at most OFFLINE_AFTER_HOURS): communication lost.' },
  }),
  Device: closed({
    ...DEVICE_FIELDS, date: displayTimeOrNull, model: orNull('string'), Ongoing_fault: orNull('string'), ActualOngoingFault: orNull('string'),
    BatteryOrLine: orNull('number'), BatteryMCU: orNull('number'), AverageCurrent1m: orNull('number'), Temperature: orNull('number'), rssi: orNull('number'),
  }),
  DeviceInformation: closed({ ...DEVICE_FIELDS, latestRecord: { oneOf: [{ $ref: '#/components/schemas/DeviceRecord' }, { type: 'null' }] } }),
  DeviceSummary: closed({
    totalDevices: int, online: int, offline: int, neverCheckedIn: int, lowBattery: int, offlineAfterHours: num,
    byActualOngoingFault: { type: 'array', items: closed({ ActualOngoingFault: str, count: int }) },
  }),
  LoadHistory: closed({
    PacketTimestamp: displayTime, IMEINumber: str, PeakCurrent: orNull('number'), PeakCurrentTimestamp: displayTimeOrNull,
    ...Object.fromEntries(HOURLY_COLUMNS.map((h) => [h, orNull('number')])), CurrentName: orNull('string'),
  }),
  TableColumn: closed({ table: str, column: str, type: str, nullable: { type: 'boolean' } }),
  Health: closed({ status: { const: 'ok' } }),
  Readiness: closed({ status: { enum: ['ready', 'unavailable'] }, checks: { type: 'object', additionalProperties: { enum: ['up', 'down'] } } }),
  ...FLEET_SCHEMAS,
};

export { ref } from '../openapi-kit.js';
