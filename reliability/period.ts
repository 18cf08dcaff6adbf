// The period a reliability answer covers and the previous period of the same length it is compared with
// (docs/decisions.md#reliability-analytics-issue-43-rel-core). Days are UTC calendar days (YYYY-MM-DD), both
// ends inclusive, because the day tables bucket incidents by the UTC day of their first trip. The API parses
// the YYYYMMDD text of `from` and `to` (domain/calendar-days.ts) and hands the days here.

export interface Period { from: string; to: string; days: number }
export interface PeriodProblem { parameter: 'from' | 'to'; message: string }

const DAY_MS = 86_400_000;
/** Default span when `from` is absent: 30 days ending with `to`. */
export const DEFAULT_PERIOD_DAYS = 30;
/** Longest period asked for at once (five years and a leap day): a bound keeps every answer bounded. */
export const MAX_PERIOD_DAYS = 1827;

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const ms = (day: string) => Date.parse(`${day}T00:00:00Z`);

/**
 * The period `from`..`to` (YYYY-MM-DD, inclusive); `to` defaults to the UTC day of `now`, `from` to 29 days
 * before `to`.
 *
 * @example
 *   period('2026-01-01', '2026-01-31', now) // { from: '2026-01-01', to: '2026-01-31', days: 31 }
 */
export function period(from: string | undefined, to: string | undefined, now: number): Period | PeriodProblem {
  const toMs = ms(to ?? iso(now));
  const fromMs = from === undefined ? toMs - (DEFAULT_PERIOD_DAYS - 1) * DAY_MS : ms(from);
  if (fromMs > toMs) return { parameter: 'from', message: 'is after "to".' };
  const days = Math.round((toMs - fromMs) / DAY_MS) + 1;
  if (days > MAX_PERIOD_DAYS) return { parameter: 'from', message: `starts a period longer than ${MAX_PERIOD_DAYS} days.` };
  return { from: iso(fromMs), to: iso(toMs), days };
}

export const isPeriodProblem = (p: Period | PeriodProblem): p is PeriodProblem => 'parameter' in p;

/** The period of the same number of days that ends the day before `p` starts. */
export function previousPeriod(p: Period): Period {
  const fromMs = ms(p.from);
  return { from: iso(fromMs - p.days * DAY_MS), to: iso(fromMs - DAY_MS), days: p.days };
}
