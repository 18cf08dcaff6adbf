// The API formats timestamps as `YYYY-MMM-DD hh:mm A` in the caller's zone (spec 4.2). The portal shows
// them exactly as sent; it turns them back into instants only to place them on a chart axis and to tell
// how old a check-in is. Intl does the zone arithmetic (no date library in the bundle).
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const PATTERN = /^(\d{4})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}) (AM|PM)$/;

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
  if (m[6] === 'PM') hour += 12;
  const wall = Date.UTC(Number(m[1]), month, Number(m[3]), hour, Number(m[5]));
  // Two passes settle the offset across a DST change.
  let guess = wall - offsetMs(wall, timeZone);
  guess = wall - offsetMs(guess, timeZone);
  return guess;
}

/** `YYYYMMDD` (the API's from/to) from an <input type="date"> value `YYYY-MM-DD`, and back. */
export const toApiDay = (iso: string) => iso.replace(/-/g, '');
export const fromApiDay = (day: string | null) => (day && /^\d{8}$/.test(day) ? `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}` : '');

/** Today in `timeZone` as YYYYMMDD, and `days` before it. */
export function apiDay(timeZone: string, daysBefore = 0, now = Date.now()): string {
  const d = new Date(now - daysBefore * 86_400_000);
  const f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return f.format(d).replace(/-/g, '');
}
