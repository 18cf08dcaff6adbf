// The answers of the fleet device list (and its CSV), map-data, device-summary and device-information as they
// were made before those routes wrote rows as arrays (issue 45 point 2, commit db470fa): a pg row object per
// row, a presented object per row, JSON.stringify of the whole. Kept here, out of the product, as the reference
// the row writers are held to byte for byte (test/api/row-json.test.ts over generated rows,
// test/integration/api/row-writers.test.ts over seeded data through the running routes).
import { toSpreadsheetCsv, type Cell } from '../../plumbing/csv.js';
import { displayFault, displayTime, presentDevice, presentRecord, type PresentContext } from '../../api/device-records/present.js';

type Row = Record<string, unknown>;
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : null);
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** One fleet list row (the CSV's columns are these keys, in this order). */
export function presentFleetDevice(r: Row) {
  return {
    IMEINumber: r.IMEINumber as string, Real_Name: (r.Real_Name as string | null) ?? null, PowerLineID: (r.PowerLineID as string | null) ?? null,
    model: (r.model as string | null) ?? null, firmware: (r.firmware as string | null) ?? null, LastCheckInTime: iso(r.LastCheckInTime),
    onlineRate7d: numOrNull(r.online_rate_7d), received7d: numOrNull(r.received_7d), expected7d: numOrNull(r.expected_7d),
    onlineRate30d: numOrNull(r.online_rate_30d), received30d: numOrNull(r.received_30d), expected30d: numOrNull(r.expected_30d),
    rssiMedian7d: numOrNull(r.rssi_median_7d), rssiSlope30d: numOrNull(r.rssi_slope_30d), signal: (r.signal as string | null) ?? null,
    batteryStatus: (r.battery_status as string | null) ?? null, batteryDaysLeft: numOrNull(r.battery_days_left), batteryEndDay: (r.battery_end_day as string | null) ?? null,
    silenceLabel: (r.silence_label as string | null) ?? null, silentSince: iso(r.silent_since),
    driftSettings: r.drift_settings as string[], assessedAt: iso(r.assessed_at),
  };
}

/** The fleet CSV of `batches` (each a read of up to CSV_BATCH rows), header first. */
export function fleetCsv(batches: readonly Row[][]): string {
  let out = toSpreadsheetCsv([Object.keys(presentFleetDevice({ drift_settings: [] }))]);
  for (const rows of batches) {
    const items = rows.map(presentFleetDevice);
    if (items.length) out += toSpreadsheetCsv(items.map((i) => Object.values({ ...i, driftSettings: i.driftSettings.join('|') }) as Cell[]));
  }
  return out;
}

/** One map-data device. */
export function presentMapDevice(row: Row, ctx: PresentContext): Row {
  return {
    IMEINumber: row.IMEINumber, Real_Name: row.Real_Name ?? null, Lat: row.Lat ?? null, Long: row.Long ?? null,
    PowerLineID: row.PowerLineID ?? null, PowerLineName: row.PowerLineName ?? null,
    ActualOngoingFault: displayFault(row.ActualOngoingFault), BatteryOrLine: row.BatteryOrLine ?? null,
    LastCheckInTime: displayTime(row.LastCheckInTime, ctx), Offline: row.Offline === true,
  };
}

/** device-information's answer from its one row (latest record columns prefixed `latest_`). */
export function presentDeviceInformation(row: Row, ctx: PresentContext): Row {
  return { ...presentDevice(row, ctx), groups: row.groups, latestRecord: row.latest_RecordID == null ? null : presentRecord(row, ctx, 'latest_') };
}

/** device-summary's answer from its rows (one per latest code). */
export function deviceSummaryAnswer(rows: readonly { code: number | null; n: number; online: number; never: number; low: number }[], offlineAfterHours: number): Row {
  const byFault = new Map<string, number>();
  for (const row of rows) {
    if (row.code === null) continue;
    const key = displayFault(row.code)!;
    byFault.set(key, (byFault.get(key) ?? 0) + row.n);
  }
  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0);
  const total = sum((r) => r.n);
  const online = sum((r) => r.online);
  return {
    totalDevices: total,
    online,
    offline: total - online,
    neverCheckedIn: sum((r) => r.never),
    lowBattery: sum((r) => r.low),
    offlineAfterHours,
    byActualOngoingFault: [...byFault].sort(([a], [b]) => a.localeCompare(b)).map(([ActualOngoingFault, count]) => ({ ActualOngoingFault, count })),
  };
}
