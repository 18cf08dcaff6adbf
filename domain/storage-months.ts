// Months of the time-partitioned tables (docs/decisions.md#storage-lifecycle): a month is `YYYY-MM` in UTC,
// the unit of a partition, of an archive file and of retention. Pure: instants and `now` in, months out.

/** `YYYY-MM` of an interchange timestamp (`2026-11-20T14:00:00.000Z`, utc-timestamp.ts): its first 7 characters. */
export const monthOfTimestamp = (iso: string): string => iso.slice(0, 7);

/** `YYYY-MM` of an instant. */
export const monthOfMs = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** The month `n` months after `month` (n may be negative). */
export function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const index = y * 12 + (m - 1) + n;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** First instant of `month` (inclusive) and of the next one (exclusive), epoch ms. */
export function monthBounds(month: string): { fromMs: number; untilMs: number } {
  return { fromMs: Date.parse(`${month}-01T00:00:00.000Z`), untilMs: Date.parse(`${addMonths(month, 1)}-01T00:00:00.000Z`) };
}

/** `YYYY-MM-01`, the form PostgreSQL's `date` and fl_ensure_month take. */
export const monthDate = (month: string): string => `${month}-01`;

export const isMonth = (text: string): boolean => /^\d{4}-(0[1-9]|1[0-2])$/.test(text);

/** The current month and the `ahead` months after it: what the service keeps created in advance. */
export function monthsAhead(nowMs: number, ahead: number): string[] {
  const current = monthOfMs(nowMs);
  return Array.from({ length: ahead + 1 }, (_, i) => addMonths(current, i));
}

/**
 * The first month an organisation keeping `retentionMonths` still keeps at `now`: the current month and the
 * `retentionMonths` whole months before it stay, so data is kept at least that long. null keeps everything.
 */
export function firstKeptMonth(retentionMonths: number | null, nowMs: number): string | null {
  return retentionMonths === null ? null : addMonths(monthOfMs(nowMs), -retentionMonths);
}

/** Has `month` expired for an organisation whose first kept month is `firstKept`? */
export const expired = (month: string, firstKept: string | null): boolean => firstKept !== null && month < firstKept;

/** Months before the current one for which a partition is still made on demand (docs/decisions.md#hostile-callers). */
export const ON_DEMAND_MONTHS_BACK = 24;

/**
 * May a device's timestamp make a partition for `month`? Only from ON_DEMAND_MONTHS_BACK before the current
 * month to `ahead` after it: a device clock cannot make the tables grow a partition for any month it likes
 * (each one costs planning time on every unpruned read). Rows of other months are still stored, in the
 * default partition.
 */
export function mayCreateMonth(month: string, nowMs: number, ahead: number): boolean {
  const current = monthOfMs(nowMs);
  return isMonth(month) && month >= addMonths(current, -ON_DEMAND_MONTHS_BACK) && month <= addMonths(current, ahead);
}
