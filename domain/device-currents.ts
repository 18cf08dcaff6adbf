// Device currents (spec 2.4, 6.1 step 10): one row per check-in, HourlyAverages[n] in AverageCurrentH<n>,
// keyed by (PacketTimestamp = device_data.date, IMEINumber), with the device name at check-in time.
import type { CheckIn } from './checkin.js';
import { HOURLY_AVERAGE_COUNT } from './checkin.js';

type Hour = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17 | 18 | 19 | 20 | 21 | 22 | 23;
export type HourlyColumn = `AverageCurrentH${Hour}`;

export type DeviceCurrentsRow = {
  PacketTimestamp: string;
  IMEINumber: string;
  PeakCurrent: number | null;
  PeakCurrentTimestamp: string | null;
  CurrentName: string | null;
} & Record<HourlyColumn, number>;

/** AverageCurrentH0 ... AverageCurrentH23, in order (for column lists and COPY). */
export const HOURLY_COLUMNS: readonly HourlyColumn[] = Array.from(
  { length: HOURLY_AVERAGE_COUNT },
  (_, n) => `AverageCurrentH${n}` as HourlyColumn,
);

/**
 * The currents row of a check-in, or null when the message has no (or an empty) currents object
 * (docs/decisions.md: then no row is written). `currentName` is the enriched CurrentName.
 */
export function deviceCurrentsRow(checkIn: CheckIn, currentName: string | null): DeviceCurrentsRow | null {
  const currents = checkIn.currents;
  if (currents === null || currents.HourlyAverages.length !== HOURLY_AVERAGE_COUNT) return null;
  const row = {
    PacketTimestamp: checkIn.device_data.date,
    IMEINumber: checkIn.device_data.IMEINumber,
    PeakCurrent: currents.PeakCurrent,
    PeakCurrentTimestamp: currents.PeakCurrentTimestamp,
    CurrentName: currentName,
  } as DeviceCurrentsRow;
  HOURLY_COLUMNS.forEach((column, n) => { row[column] = currents.HourlyAverages[n] as number; });
  return row;
}
