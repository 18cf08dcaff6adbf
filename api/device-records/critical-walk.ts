// The walks a page of critical data takes (api/device-records/critical-data.ts), a type of its own so the read
// deps (endpoint.ts) can hold the app's cache of them without importing critical-data.ts.

/**
 * How a page finds one source's rows (docs/decisions.md#critical-data-walked-per-device). `by time`: the
 * source's fault events of the whole organisation in time order (its partial index on EventTimestamp), those out
 * of reach skipped; it stops at the page when the caller reaches most of the organisation's events (an admin).
 * `by device`: for each device in reach, that device's fault events in time order (migration 0048's partial
 * index per IMEI), each walk cut to the page, then merged; bounded by the devices reached and the page, never by
 * the events of devices out of reach. `{ active }`: the same over the devices listed, those in reach that had
 * fault events of the source in the range's months (migration 0051's critical_event_months), each walked only in
 * its months from the first to the last listed, for a group too large to walk every device: a source none of them
 * had events of costs a look at that table, not the organisation's week of events
 * (docs/decisions.md#critical-data-sources-a-group-has-not). All answer the same rows in the same order.
 */
export type SourceWalk = 'by time' | 'by device' | { active: readonly ActiveDevice[] };
/** A device listed for a source's walk, with its first and last month of that source's events in the range (`YYYY-MM-DD`, the month's first day, UTC). */
export interface ActiveDevice { imei: string; first: string; last: string }
/** A page's walk of each source, in the order of critical-data.ts's SOURCE_NAMES. */
export type CriticalWalk = readonly SourceWalk[];
