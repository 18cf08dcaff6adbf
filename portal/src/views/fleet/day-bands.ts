// The colour of a day of the device strip (GET /api/fleet/devices/{imei}/health): by the share of the day's
// expected check-ins that did not arrive. Pure, so the legend, the cells and the unit test read one table.
// Colours from ColorBrewer's RdYlBu (blue, yellow, orange, dark red), which stays apart for red-green colour
// blindness; each cell also names its band in words (its label and tooltip), so colour is never the only carrier.

/** What a day of the strip counts (GET /api/fleet/devices/{imei}/health `days[]`). */
export interface DayCounts { expected: number | null; received: number; missed: number | null }

export type DayBand = 'none-expected' | 'all-received' | 'few-missed' | 'many-missed' | 'all-missed';

export interface BandInfo { band: DayBand; label: string; colour: string }

/** Up to this share missed is "a few". */
export const FEW_MISSED_SHARE = 0.25;

/** The bands in legend order. */
export const BANDS: readonly BandInfo[] = [
  { band: 'all-received', label: 'all received', colour: '#4575b4' },
  { band: 'few-missed', label: `a few missed (up to ${FEW_MISSED_SHARE * 100} %)`, colour: '#fee08b' },
  { band: 'many-missed', label: `many missed (over ${FEW_MISSED_SHARE * 100} %)`, colour: '#f46d43' },
  { band: 'all-missed', label: 'none received', colour: '#a50026' },
  { band: 'none-expected', label: 'nothing expected (never checked in, a day to come, or before the device joined your organisation)', colour: '#e4e7eb' },
];

const BY_BAND = new Map(BANDS.map((b) => [b.band, b]));
export const bandInfo = (band: DayBand): BandInfo => BY_BAND.get(band)!;

/** The band of one day: by missed over expected; a day with nothing expected has no colour of its own. */
export function dayBand(day: DayCounts): DayBand {
  if (day.expected === null || day.expected === 0 || day.missed === null) return 'none-expected';
  if (day.missed === 0) return 'all-received';
  if (day.received === 0 || day.missed >= day.expected) return 'all-missed';
  return day.missed / day.expected <= FEW_MISSED_SHARE ? 'few-missed' : 'many-missed';
}
