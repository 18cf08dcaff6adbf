// The shapes of the fleet API (api/fleet/: GET /api/fleet/summary, /api/fleet/devices, /api/fleet/devices/{imei}/health;
// docs/api.md). Kept to what the view reads; the API's JSON Schemas (api/fleet/schemas.ts) are the full answer.
export const SILENCE_LABELS = ['never_commissioned', 'battery_exhausted', 'signal_decline', 'cluster', 'deenergised', 'unknown'] as const;
export type SilenceLabel = (typeof SILENCE_LABELS)[number];
export type Signal = 'ok' | 'weak' | 'falling' | 'unknown';
export type BatteryStatus = 'ok' | 'ends_soon' | 'not_enough_data' | 'flat' | 'line_powered' | 'exhausted';

export interface OnlineRate { received: number; expected: number; rate: number | null; devices: number }

export interface FleetSummary {
  devices: number;
  assessed: number;
  online7d: OnlineRate;
  online30d: OnlineRate;
  batteryEndWithin90d: number;
  signal: { weak: number; falling: number };
  firmwareByModel: { model: string | null; firmware: string | null; devices: number }[];
  silentByLabel: Record<SilenceLabel, number>;
  silent: number;
  drifting: number;
}

export interface FleetDevice {
  IMEINumber: string; Real_Name: string | null; PowerLineID: string | null; model: string | null; firmware: string | null;
  LastCheckInTime: string | null;
  onlineRate7d: number | null; received7d: number | null; expected7d: number | null;
  onlineRate30d: number | null; received30d: number | null; expected30d: number | null;
  rssiMedian7d: number | null; rssiSlope30d: number | null; signal: Signal | null;
  batteryStatus: BatteryStatus | null; batteryDaysLeft: number | null; batteryEndDay: string | null;
  silenceLabel: SilenceLabel | null; silentSince: string | null;
  driftSettings: string[]; assessedAt: string | null;
}

export interface HealthDay {
  day: string; expected: number | null; received: number; missed: number | null;
  rssiMedian: number | null; rssiMin: number | null; rssiMax: number | null;
  batteryMcuMin: number | null; batteryMcuMax: number | null; batteryMcuLast: number | null;
  batteryLedMin: number | null; batteryLedMax: number | null; batteryLedLast: number | null; batteryOrLine: number | null;
  connectTimeSum: number | null; connectTimeReports: number; firmware: string | null;
  temperatureMin: number | null; temperatureMax: number | null; firstAt: string | null; lastAt: string | null;
}

export type Evidence = Record<string, unknown>;

export interface DeviceHealth {
  IMEINumber: string; from: string; to: string; days: HealthDay[];
  health: {
    assessedAt: string | null; historyDays: number; expected7d: number; received7d: number; expected30d: number; received30d: number;
    rssiMedian7d: number | null; rssiSlope30d: number | null; signal: Signal; batteryStatus: BatteryStatus;
    batteryEndDay: string | null; batteryDaysLeft: number | null; batteryEvidence: Evidence; firmware: string | null; model: string | null;
  } | null;
  silence: { silentSince: string | null; label: SilenceLabel; evidence: Evidence; groupKey: string | null; assessedAt: string | null } | null;
  drift: { setting: string; expected: string | null; reported: string | null; sinceDay: string; assessedAt: string | null }[];
}
