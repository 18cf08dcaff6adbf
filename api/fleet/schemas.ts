// JSON Schemas of the fleet answers (endpoints.ts), closed like every response schema (api/openapi/schemas.ts),
// merged into the document's components there.
import { SILENCE_LABELS } from '../../fleet-health/summary.js';

type Schema = Record<string, unknown>;
const orNull = (type: string): Schema => ({ type: [type, 'null'] });
const int: Schema = { type: 'integer' };
const str: Schema = { type: 'string' };
const dateTimeOrNull: Schema = { type: ['string', 'null'], format: 'date-time' };
const day: Schema = { type: 'string', format: 'date' };
const closed = (properties: Record<string, Schema>, description?: string): Schema =>
  ({ type: 'object', ...(description ? { description } : {}), properties, required: Object.keys(properties), additionalProperties: false });
const label: Schema = { enum: [...SILENCE_LABELS, null] };
const onlineRate = closed({
  received: { ...int, description: 'Check-ins received, each device counted up to its expected.' }, expected: int,
  rate: { ...orNull('number'), description: 'received / expected; null when nothing was expected.' }, devices: { ...int, description: 'Assessed devices in the sums.' },
});

export const FLEET_SCHEMAS: Record<string, Schema> = {
  FleetSummary: closed({
    devices: int, assessed: { ...int, description: 'Devices with an assessment the caller may read.' }, online7d: onlineRate, online30d: onlineRate,
    batteryEndWithin90d: { ...int, description: 'Devices whose estimated battery end day is at most 90 days after today (UTC), or past.' },
    signal: closed({ weak: int, falling: int }),
    firmwareByModel: { type: 'array', items: closed({ model: orNull('string'), firmware: orNull('string'), devices: int }) },
    silentByLabel: closed(Object.fromEntries(SILENCE_LABELS.map((l) => [l, int]))), silent: int,
    drifting: { ...int, description: 'Devices with at least one setting or firmware differing from their group profile.' },
  }),
  FleetDevice: closed({
    IMEINumber: str, Real_Name: orNull('string'), PowerLineID: orNull('string'), model: orNull('string'), firmware: orNull('string'),
    LastCheckInTime: dateTimeOrNull,
    onlineRate7d: orNull('number'), received7d: orNull('integer'), expected7d: orNull('integer'),
    onlineRate30d: orNull('number'), received30d: orNull('integer'), expected30d: orNull('integer'),
    rssiMedian7d: orNull('number'), rssiSlope30d: { ...orNull('number'), description: 'dB per day over 30 days.' },
    signal: { enum: ['ok', 'weak', 'falling', 'unknown', null] },
    batteryStatus: { enum: ['ok', 'ends_soon', 'not_enough_data', 'flat', 'line_powered', 'exhausted', null] },
    batteryDaysLeft: orNull('integer'), batteryEndDay: { type: ['string', 'null'], format: 'date' },
    silenceLabel: label, silentSince: dateTimeOrNull,
    driftSettings: { type: 'array', items: str }, assessedAt: dateTimeOrNull,
  }),
  FleetDeviceHealth: closed({
    IMEINumber: str, from: day, to: day,
    days: {
      type: 'array',
      items: closed({
        day, expected: orNull('integer'), received: int, missed: orNull('integer'),
        rssiMedian: orNull('number'), rssiMin: orNull('number'), rssiMax: orNull('number'),
        batteryMcuMin: orNull('number'), batteryMcuMax: orNull('number'), batteryMcuLast: orNull('number'),
        batteryLedMin: orNull('number'), batteryLedMax: orNull('number'), batteryLedLast: orNull('number'), batteryOrLine: orNull('number'),
        connectTimeSum: orNull('number'), connectTimeReports: int, firmware: orNull('string'),
        temperatureMin: orNull('number'), temperatureMax: orNull('number'), firstAt: dateTimeOrNull, lastAt: dateTimeOrNull,
      }),
    },
    health: {
      oneOf: [{ type: 'null' }, closed({
        assessedAt: dateTimeOrNull, historyDays: int, expected7d: int, received7d: int, expected30d: int, received30d: int,
        rssiMedian7d: orNull('number'), rssiSlope30d: orNull('number'), signal: str, batteryStatus: str, batteryEndDay: { type: ['string', 'null'], format: 'date' },
        batteryDaysLeft: orNull('integer'), batteryEvidence: { type: 'object' }, firmware: orNull('string'), model: orNull('string'),
      })],
    },
    silence: { oneOf: [{ type: 'null' }, closed({ silentSince: dateTimeOrNull, label: { enum: [...SILENCE_LABELS] }, evidence: { type: 'object' }, groupKey: orNull('string'), assessedAt: dateTimeOrNull })] },
    drift: { type: 'array', items: closed({ setting: str, expected: orNull('string'), reported: orNull('string'), sinceDay: day, assessedAt: dateTimeOrNull }) },
  }),
};
