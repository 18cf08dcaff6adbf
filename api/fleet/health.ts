// GET /api/fleet/devices/{imei}/health (issue 44 point 2): a device's strip of days, one entry per UTC day of the
// range (default the last 30, at most MAX_DAYS), from its daily rollup (device_health_days, fleet/health-day.ts),
// with its current assessment rows. Expected check-ins per day come from the one rule (expectedPerDay) with the
// interval the day was written with, else the device's learned one. Days of a device moved from another
// organisation reach the caller from the move on (fleet-health/read-scope.ts). What the device reported as text
// (firmware, a drifting setting) is shown cut as its assessment keeps it (fleet/device-health.ts reportedText).
import type { Temporal } from 'temporal-polyfill';
import { DEFAULT_FLOOR_S, expectedPerDay } from '../../domain/checkin-clock.js';
import { histogramMedian, type Histogram } from '../../fleet/health-day.js';
import { REPORTED_TEXT_MAX, reportedText } from '../../fleet/device-health.js';
import { assessmentReadableSql, dayReadableSql } from '../../fleet-health/read-scope.js';
import { badParameter } from '../errors.js';
import type { ReadEndpoint } from '../device-records/endpoint.js';
import { deviceInReach, imeisInReach, type ReachCaller } from '../device-records/reach.js';
import { silenceAsShown, silenceImeis, type StoredSilence } from './silence-shown.js';
import type pg from 'pg';

export const DEFAULT_DAYS = 30;

/** The triage's evidence as the caller may see it: one statement asks which indicators it names are in reach. */
async function silenceInReach(db: Pick<pg.Pool, 'query'>, caller: ReachCaller, s: StoredSilence): Promise<StoredSilence> {
  const reached = await imeisInReach(db, caller, silenceImeis(s));
  return silenceAsShown(s, (imei) => reached.has(imei));
}
export const MAX_DAYS = 400;

interface DayRow {
  day: string; received: number; interval_s: number | null; rssi_min: number | null; rssi_max: number | null;
  rssi_values: number[]; rssi_counts: number[];
  battery_mcu_min: number | null; battery_mcu_max: number | null; battery_mcu_last: number | null;
  battery_led_min: number | null; battery_led_max: number | null; battery_led_last: number | null; battery_or_line: number | null;
  connect_time_sum: string; connect_time_n: number; version: string | null; temperature_min: number | null; temperature_max: number | null;
  first_at: Date; last_at: Date;
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : null);

const DAY_MS = 86_400_000;
/** A UTC day's midnight and its `YYYY-MM-DD`: every UTC day is 86,400 s long, so the strip's days are plain
 * arithmetic, with no Temporal object per day on the request path (docs/decisions.md#reads-that-build-nothing-they-throw-away). */
const midnightOf = (day: Temporal.PlainDate) => Date.parse(`${day.toString()}T00:00:00Z`);
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The range asked for, as UTC days (`YYYY-MM-DD`, each day of it in `days`): `to` default today, `from` default DEFAULT_DAYS - 1 days before `to`. */
export function stripRange(from: Temporal.PlainDate | null, to: Temporal.PlainDate | null, nowMs: number): { from: string; to: string; days: string[] } {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const fromMs = from === null ? null : midnightOf(from);
  const end = to !== null ? midnightOf(to) : fromMs !== null ? Math.min(fromMs + (DEFAULT_DAYS - 1) * DAY_MS, today) : today;
  const start = fromMs ?? end - (DEFAULT_DAYS - 1) * DAY_MS;
  const count = (end - start) / DAY_MS + 1;
  if (count > MAX_DAYS) throw badParameter('from', `and "to" span ${count} days; at most ${MAX_DAYS}.`, { from: dayText(start), to: dayText(end) });
  return { from: dayText(start), to: dayText(end), days: Array.from({ length: Math.max(count, 0) }, (_, i) => dayText(start + i * DAY_MS)) };
}

export const fleetDeviceHealth: ReadEndpoint = {
  path: '/api/fleet/devices/:imei/health',
  operationId: 'fleetDeviceHealth',
  tag: 'fleet',
  summary: 'One device\'s day strip and current fleet assessment',
  description: `One entry per UTC day from \`from\` to \`to\` (default the last ${DEFAULT_DAYS} days, at most ${MAX_DAYS}): check-ins expected (from the learned check-in interval; today's in proportion to the hours gone; null before the device's first check-in, after today, or before a move into the caller's organisation), received and missed, RSSI median/min/max, battery readings, connection time, firmware, temperature range. With the device's current assessment (health), silence label (silence) and drifting settings (drift).`,
  params: { accepts: ['from', 'to'], sortable: {}, filterable: {} },
  rangeField: 'the day strip (UTC days)',
  schema: 'FleetDeviceHealth', shape: 'object',
  async run(deps, caller, q, imei) {
    const reach = await deviceInReach(deps.pool, caller, imei!);
    const nowMs = deps.now();
    const range = stripRange(q.from, q.to, nowMs);
    const floor = deps.checkinFloorS ?? DEFAULT_FLOOR_S;
    const device = `join device_information d on d."IMEINumber" = x."IMEINumber" and d."DeviceID" = $1`;
    const [days, clock, first, health, silence, drift] = await Promise.all([
      deps.pool.query<DayRow>(`select x.day::text as day, x.received, x.interval_s, x.rssi_min, x.rssi_max, x.rssi_values, x.rssi_counts,
               x.battery_mcu_min, x.battery_mcu_max, x.battery_mcu_last, x.battery_led_min, x.battery_led_max, x.battery_led_last, x.battery_or_line,
               x.connect_time_sum::text, x.connect_time_n, left(x.version, ${REPORTED_TEXT_MAX + 1}) as version, x.temperature_min, x.temperature_max, x.first_at, x.last_at
          from device_health_days x ${device}
         where x."IMEINumber" = $2 and x.day between $3::date and $4::date and ${dayReadableSql('x')} order by x.day`,
      [reach.deviceId, imei, range.from, range.to]),
      deps.pool.query<{ expected_interval_s: number | null }>('select expected_interval_s from checkin_clock where "IMEINumber" = $1', [imei]),
      // Its first day with a check-in (the rollup's key): before it nothing was expected of the device.
      deps.pool.query<{ day: string | null }>('select min(day)::text as day from device_health_days where "IMEINumber" = $1', [imei]),
      deps.pool.query(`select x.*, to_char(x.battery_end_day, 'YYYY-MM-DD') as end_day from device_health x ${device} where x."IMEINumber" = $2 and ${assessmentReadableSql('x')}`, [reach.deviceId, imei]),
      deps.pool.query(`select x.* from device_silence x ${device} where x."IMEINumber" = $2 and ${assessmentReadableSql('x')}`, [reach.deviceId, imei]),
      deps.pool.query(`select x.setting, x.expected, left(x.reported, ${REPORTED_TEXT_MAX + 1}) as reported, x.since_day::text as since_day, x.assessed_at from device_drift x ${device}
         where x."IMEINumber" = $2 and ${assessmentReadableSql('x')} order by x.setting`, [reach.deviceId, imei]),
    ]);
    const clockInterval = clock.rows[0]?.expected_interval_s ?? null;
    const firstCheckInDay = clock.rows.length > 0 ? first.rows[0]?.day ?? null : null;
    const byDay = new Map(days.rows.map((r) => [r.day, r]));
    const today = new Date(nowMs).toISOString().slice(0, 10);
    const dayFraction = (nowMs % 86_400_000) / 86_400_000;
    // A moved device's days start at its move day (the caller's organisation's first).
    const firstDay = reach.since === null ? null : reach.since.toISOString().slice(0, 10);
    const entries = [];
    for (const day of range.days) {
      if (firstDay !== null && day < firstDay) continue;
      const r = byDay.get(day);
      const perDay = firstCheckInDay === null || day < firstCheckInDay || day > today ? null : expectedPerDay(r?.interval_s ?? clockInterval, floor);
      const expected = perDay === null ? null : day === today ? Math.floor(perDay * dayFraction) : perDay;
      const received = r?.received ?? 0;
      const rssi: Histogram = r ? r.rssi_values.map((v, i) => [v, r.rssi_counts[i]!] as const) : [];
      entries.push({
        day, expected, received, missed: expected === null ? null : Math.max(expected - received, 0),
        rssiMedian: histogramMedian(rssi), rssiMin: r?.rssi_min ?? null, rssiMax: r?.rssi_max ?? null,
        batteryMcuMin: r?.battery_mcu_min ?? null, batteryMcuMax: r?.battery_mcu_max ?? null, batteryMcuLast: r?.battery_mcu_last ?? null,
        batteryLedMin: r?.battery_led_min ?? null, batteryLedMax: r?.battery_led_max ?? null, batteryLedLast: r?.battery_led_last ?? null,
        batteryOrLine: r?.battery_or_line ?? null,
        connectTimeSum: r ? Number(r.connect_time_sum) : null, connectTimeReports: r?.connect_time_n ?? 0,
        firmware: reportedText(r?.version ?? null), temperatureMin: r?.temperature_min ?? null, temperatureMax: r?.temperature_max ?? null,
        firstAt: iso(r?.first_at), lastAt: iso(r?.last_at),
      });
    }
    const h = health.rows[0] as Record<string, unknown> | undefined;
    const s = silence.rows[0] as Record<string, unknown> | undefined;
    const shown = s ? await silenceInReach(deps.pool, caller, { evidence: s.evidence as Record<string, unknown>, groupKey: s.group_key as string | null }) : null;
    return {
      IMEINumber: imei!, from: range.from, to: range.to, days: entries,
      health: h ? {
        assessedAt: iso(h.assessed_at), historyDays: h.history_days, expected7d: h.expected_7d, received7d: h.received_7d,
        expected30d: h.expected_30d, received30d: h.received_30d, rssiMedian7d: h.rssi_median_7d, rssiSlope30d: h.rssi_slope_30d,
        signal: h.signal, batteryStatus: h.battery_status, batteryEndDay: h.end_day, batteryDaysLeft: h.battery_days_left,
        batteryEvidence: h.battery_evidence, firmware: h.firmware, model: h.model,
      } : null,
      silence: s && shown ? { silentSince: iso(s.silent_since), label: s.label, evidence: shown.evidence, groupKey: shown.groupKey, assessedAt: iso(s.assessed_at) } : null,
      drift: drift.rows.map((x: Record<string, unknown>) => ({ setting: x.setting, expected: x.expected, reported: reportedText(x.reported as string | null), sinceDay: x.since_day, assessedAt: iso(x.assessed_at) })),
    };
  },
};
