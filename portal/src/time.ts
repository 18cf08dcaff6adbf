// The API formats timestamps as `YYYY-MMM-DD hh:mm A` in the caller's zone (spec 4.2), or with seconds,
// `YYYY-MMM-DD hh:mm:ss A`, when the portal asks for them (api/client.ts). The portal shows them as sent and
// writes its own times (timelines, status lines, chart axes and legends, date fields) in the same format
// family and the same zone, to the second, so one clock runs through every view (docs/decisions.md#portal).
// This file is the portal's one owner of time formats. Intl does the zone arithmetic (no date library).
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const PATTERN = /^(\d{4})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2})(?::(\d{2}))? (AM|PM)$/;

const formatters = new Map<string, Intl.DateTimeFormat>();
function offsetMs(epochMs: number, timeZone: string): number {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(timeZone, f);
  }
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(epochMs)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour! % 24, parts.minute!, parts.second!);
  return wall - Math.floor(epochMs / 1000) * 1000;
}

/** Epoch ms of an API display time in `timeZone`, or null when the text is not one. */
export function displayTimeMs(text: string, timeZone: string): number | null {
  const m = PATTERN.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]!);
  if (month < 0) return null;
  let hour = Number(m[4]) % 12;
  if (m[7] === 'PM') hour += 12;
  const wall = Date.UTC(Number(m[1]), month, Number(m[3]), hour, Number(m[5]), Number(m[6] ?? 0));
  // Two passes settle the offset across a DST change.
  let guess = wall - offsetMs(wall, timeZone);
  guess = wall - offsetMs(guess, timeZone);
  return guess;
}

/** Wall-clock parts of an instant in `timeZone`. */
function wallParts(epochMs: number, timeZone: string) {
  const wall = new Date(epochMs + offsetMs(epochMs, timeZone));
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth(), day: wall.getUTCDate(), hour: wall.getUTCHours(), minute: wall.getUTCMinutes(), second: wall.getUTCSeconds() };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MMM-DD` of an instant in `timeZone`. */
export function formatDisplayDay(epochMs: number, timeZone: string): string {
  const w = wallParts(epochMs, timeZone);
  return `${w.year}-${MONTHS[w.month]}-${pad(w.day)}`;
}

/** `hh:mm A` of an instant in `timeZone`. */
export function formatClock(epochMs: number, timeZone: string): string {
  const w = wallParts(epochMs, timeZone);
  return `${pad(w.hour % 12 || 12)}:${pad(w.minute)} ${w.hour < 12 ? 'AM' : 'PM'}`;
}

/** `YYYY-MMM-DD hh:mm A` of an instant in `timeZone`: the API's own format (spec 4.2). */
export const formatDisplayTime = (epochMs: number, timeZone: string) => `${formatDisplayDay(epochMs, timeZone)} ${formatClock(epochMs, timeZone)}`;

/** `hh:mm:ss A` of an instant in `timeZone`. */
export function formatSecondClock(epochMs: number, timeZone: string): string {
  const w = wallParts(epochMs, timeZone);
  return `${pad(w.hour % 12 || 12)}:${pad(w.minute)}:${pad(w.second)} ${w.hour < 12 ? 'AM' : 'PM'}`;
}

/** `YYYY-MMM-DD hh:mm:ss A` of an instant in `timeZone`: what every view shows for a time it formats itself. */
export const formatSecondTime = (epochMs: number, timeZone: string) => `${formatDisplayDay(epochMs, timeZone)} ${formatSecondClock(epochMs, timeZone)}`;

/** An ISO time from the API to the second in `timeZone`; '—' for none. */
export const isoToSecond = (iso: string | null, timeZone: string) => (iso ? formatSecondTime(Date.parse(iso), timeZone) : '—');

/** Whose clock a time is read from: the device's own (its events and check-ins) or the faultline service's. */
export type ClockOwner = 'device' | 'service';
export const CLOCK_NAMES: Record<ClockOwner, string> = { device: 'device clock', service: 'service clock' };

const DAY_PATTERN = /^(\d{4})-([A-Za-z]{3})-(\d{1,2})$/;

/** The API's `YYYYMMDD` from a typed `YYYY-MMM-DD` (month name in any case), or null when it is not a real day. */
export function toApiDay(text: string): string | null {
  const m = DAY_PATTERN.exec(text.trim());
  if (!m) return null;
  const month = MONTHS.findIndex((x) => x.toLowerCase() === m[2]!.toLowerCase());
  const day = Number(m[3]);
  if (month < 0 || day < 1 || new Date(Date.UTC(Number(m[1]), month, day)).getUTCMonth() !== month) return null;
  return `${m[1]}${pad(month + 1)}${pad(day)}`;
}

/** `YYYY-MMM-DD` of the API's `YYYYMMDD`; '' for anything else. */
export function fromApiDay(day: string | null): string {
  if (!day || !/^\d{8}$/.test(day)) return '';
  const month = MONTHS[Number(day.slice(4, 6)) - 1];
  return month ? `${day.slice(0, 4)}-${month}-${day.slice(6, 8)}` : '';
}

/** Today in `timeZone` as YYYYMMDD, and `days` before it. */
export function apiDay(timeZone: string, daysBefore = 0, now = Date.now()): string {
  const d = new Date(now - daysBefore * 86_400_000);
  const f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return f.format(d).replace(/-/g, '');
}
