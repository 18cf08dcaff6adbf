// How finely a month of the device-data tables is cut into partitions (migration 0049,
// docs/decisions.md#partition-granularity): one partition a month, four (days 1-7, 8-14, 15-21, 22-end) or one a
// day. Every cut nests in its month, so retention and the archive still work by whole months. Pure: the
// recommendation for a fleet, and what each choice costs in partitions.

export const GRANULARITIES = ['month', 'week', 'day'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const isGranularity = (text: string): text is Granularity => (GRANULARITIES as readonly string[]).includes(text);

/** Partitions per table a month is cut into (a month's days, 30.44 on average, for `day`). */
export const PARTS_PER_MONTH: Record<Granularity, number> = { month: 1, week: 4, day: 30.44 };

/** The longest piece of each cut, in days: the largest partition a fleet fills (a week's fourth piece, 22-31, is ten days). */
export const LONGEST_PART_DAYS: Record<Granularity, number> = { month: 31, week: 10, day: 1 };

/**
 * Check-ins one partition of device_records should hold at most: about 50 GiB over the four tables' pieces at
 * 1,050 bytes a check-in (docs/operations.md#sizing), the size up to which the piece being written, its
 * indexes and its vacuum stay a routine matter on one server. A judgement, not a measured limit; below it,
 * coarser is better: fewer partitions to plan over.
 */
export const MAX_CHECKINS_PER_PARTITION = 50_000_000;

export interface Fleet {
  /** Devices checking in. */
  devices: number;
  /** Check-ins per device per day (96 for every 15 minutes). */
  checkInsPerDevicePerDay: number;
}

/** Check-ins the longest piece of `granularity` holds for `fleet`. */
export const checkInsPerPartition = (fleet: Fleet, granularity: Granularity): number =>
  Math.ceil(fleet.devices * fleet.checkInsPerDevicePerDay * LONGEST_PART_DAYS[granularity]);

/**
 * The coarsest cut whose largest partition holds at most MAX_CHECKINS_PER_PARTITION check-ins (day when even a
 * day holds more: nothing finer is offered). Coarsest, because every partition costs planning time on a read
 * the planner cannot prune and a table in the catalog.
 */
export function recommendGranularity(fleet: Fleet): Granularity {
  if (!(fleet.devices >= 0) || !(fleet.checkInsPerDevicePerDay >= 0)) throw new Error('a fleet has a non-negative size and rate');
  return GRANULARITIES.find((g) => checkInsPerPartition(fleet, g) <= MAX_CHECKINS_PER_PARTITION) ?? 'day';
}

/**
 * Partitions each table holds at `granularity` when it keeps `retentionMonths` months: the kept months, the
 * current one and `monthsAhead` created in advance (the default partition aside).
 */
export const partitionsPerTable = (granularity: Granularity, retentionMonths: number, monthsAhead: number): number =>
  Math.ceil((retentionMonths + 1 + monthsAhead) * PARTS_PER_MONTH[granularity]);
