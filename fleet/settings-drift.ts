// Settings drift (issue 44 point 5; docs/decisions.md#settings-drift): the firmware and reset settings a device
// reports, day by day (device_health_days, fleet/health-day.ts: the latest check-in of each day), against its
// group's profile (the optional group columns of the import, migration 0036). One table says which settings are
// compared, under which name the profile holds each and which day column reports it; the import, the SQL that
// reads the days and this rule are all made from it.
import type { HealthColumnName } from './health-day.js';

export interface DriftSetting {
  /** The name a drift is listed under (device_drift.setting): the field the device reports. */
  setting: string;
  /** The group column (import field) holding the expected value. */
  profile: string;
  /** The day column that holds the value the day's latest check-in reported. */
  day: HealthColumnName;
  /** Text values compare as given; numbers compare as numbers (8 and 8.0 are one value). */
  type: 'text' | 'number';
}

const s = (setting: string, profile: string, day: HealthColumnName, type: DriftSetting['type']): DriftSetting => ({ setting, profile, day, type });

export const DRIFT_SETTINGS = [
  // The group says which firmware its devices should run; the device reports `version`.
  s('version', 'FirmwareVersion', 'version', 'text'),
  s('Tempfault_Reset_Hours', 'Tempfault_Reset_Hours', 'tempfault_reset_hours', 'text'),
  s('Permfault_Reset_Hours', 'Permfault_Reset_Hours', 'permfault_reset_hours', 'number'),
  s('Current_Reset', 'Current_Reset', 'current_reset', 'text'),
  s('Block_Reset', 'Block_Reset', 'block_reset', 'number'),
] as const satisfies readonly DriftSetting[];

export type DriftSettingName = (typeof DRIFT_SETTINGS)[number]['setting'];
export type ProfileField = (typeof DRIFT_SETTINGS)[number]['profile'];

/** A value as stored and listed (text): numbers without a trailing `.0`, so 8 and 8.0 read alike. */
export type SettingValue = string | number | null;

/** The expected value of each setting a profile sets (absent or null: that setting is not checked). */
export type Profile = Partial<Record<DriftSettingName, SettingValue>>;

/** What one day's latest check-in reported (null: it left the field out). */
export interface ReportedDay {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  values: Partial<Record<DriftSettingName, SettingValue>>;
}

export interface Drift {
  setting: DriftSettingName;
  expected: string;
  reported: string;
  /** The first day of the latest unbroken run of days reporting a value other than the expected one. */
  sinceDay: string;
}

const asText = (v: string | number): string => String(v);

function same(setting: DriftSetting, a: string | number, b: string | number): boolean {
  if (setting.type === 'number') return Number(a) === Number(b);
  return asText(a) === asText(b);
}

/**
 * The settings a device drifts on: for each setting its profile sets, the value of the latest day that reported
 * it; when that differs from the expected value, the drift, dated from the first day of the run of differing
 * days that ends with it. A day that left the field out neither breaks nor extends a run (the device said
 * nothing about it). `days` may come in any order.
 *
 * `before` carries what an earlier assessment recorded for a run that may begin before the first day read
 * (the worker reads a bounded window): when the run reaches back to the first day read and `before` has a
 * drift of the same setting against the same expected value, its day is kept.
 *
 * @example
 *   settingsDrift({ version: '4.3.0' }, [{ day: '2026-11-01', values: { version: '4.3.0' } }, { day: '2026-11-02', values: { version: '4.2.1' } }])
 *   // [{ setting: 'version', expected: '4.3.0', reported: '4.2.1', sinceDay: '2026-11-02' }]
 */
export function settingsDrift(profile: Profile, days: readonly ReportedDay[], before: readonly Drift[] = []): Drift[] {
  const ordered = [...days].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  const out: Drift[] = [];
  for (const setting of DRIFT_SETTINGS) {
    const expected = profile[setting.setting];
    if (expected === undefined || expected === null) continue;
    const reports = ordered.flatMap((d) => {
      const v = d.values[setting.setting];
      return v === undefined || v === null ? [] : [{ day: d.day, value: v }];
    });
    const latest = reports[reports.length - 1];
    if (!latest || same(setting, latest.value, expected)) continue;
    let start = reports.length - 1;
    while (start > 0 && !same(setting, reports[start - 1]!.value, expected)) start--;
    let sinceDay = reports[start]!.day;
    const earlier = before.find((b) => b.setting === setting.setting && b.expected === asText(expected));
    if (start === 0 && earlier && earlier.sinceDay < sinceDay) sinceDay = earlier.sinceDay;
    out.push({ setting: setting.setting, expected: asText(expected), reported: asText(latest.value), sinceDay });
  }
  return out;
}

/**
 * A device's profile when it is in several groups: each setting from the first group (by GroupID) that sets it,
 * so the answer never depends on the order rows were read in.
 */
export function profileOf(groups: readonly { GroupID: string; profile: Profile }[]): Profile {
  const out: Profile = {};
  for (const g of [...groups].sort((a, b) => (a.GroupID < b.GroupID ? -1 : a.GroupID > b.GroupID ? 1 : 0))) {
    for (const setting of DRIFT_SETTINGS) {
      const v = g.profile[setting.setting];
      if (out[setting.setting] === undefined && v !== undefined && v !== null) out[setting.setting] = v;
    }
  }
  return out;
}
