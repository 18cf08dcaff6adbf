// Lines and sections ranked by incidents, their trend against the previous period, and the sections that
// repeat (docs/decisions.md#reliability-analytics-issue-43-rel-core). Pure: the API reads the day tables and
// hands the sums here.

export interface KindCounts { permanent: number; momentary: number; unknown: number }
export const incidentsOf = (c: KindCounts): number => c.permanent + c.momentary + c.unknown;

/**
 * A page of ranked sections: without a power line the list is every section of every line in reach (thousands
 * at the scale), so it comes 500 at a time unless `limit` says, at most 2,000
 * (docs/decisions.md#reliability-reads-paged-and-bounded).
 */
export const SECTIONS_PAGE = { default: 500, max: 2_000 } as const;

/** A section repeats when it was located in at least this many incidents within the period. */
export const REPEAT_THRESHOLD = 2;
export const repeats = (incidents: number): boolean => incidents >= REPEAT_THRESHOLD;

export type TrendDirection = 'up' | 'down' | 'same';
export interface Trend { previousIncidents: number; change: number; direction: TrendDirection }

/** The change from the previous period (same length) to this one. */
export function trend(current: number, previous: number): Trend {
  const change = current - previous;
  return { previousIncidents: previous, change, direction: change > 0 ? 'up' : change < 0 ? 'down' : 'same' };
}

export interface Rankable { id: string; incidents: number; trippedIndicators: number }

/**
 * Most incidents first; ties by tripped indicators, then by id, so the order never depends on the split by
 * kind (which a masked organisation does not see) nor on the order rows were read. Rank 1 is the worst.
 */
export function rank<T extends Rankable>(items: readonly T[]): (T & { rank: number })[] {
  return [...items]
    .sort((a, b) => b.incidents - a.incidents || b.trippedIndicators - a.trippedIndicators || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((x, i) => ({ ...x, rank: i + 1 }));
}

/** Incidents per 100 km of line in the period; null without a length. */
export const per100Km = (incidents: number, lengthKm: number | null): number | null =>
  lengthKm === null || lengthKm <= 0 ? null : Math.round((incidents * 100 / lengthKm) * 1000) / 1000;

/**
 * The customer-weighted estimate observed by indicators: for each section, its incidents times the customers
 * the import gives for it, summed. Not IEEE 1366's customer interruptions (an indicator incident is a fault
 * current seen on the line, not a confirmed loss of supply at a meter); null when no section has customers.
 */
export function customerIncidentsEstimate(sections: readonly { incidents: number; customers: number | null }[]): number | null {
  const known = sections.filter((s) => s.customers !== null);
  return known.length === 0 ? null : known.reduce((sum, s) => sum + s.incidents * s.customers!, 0);
}
