// Hot spots (issue 43 point 2; docs/decisions.md#hot-spots-and-chattering-alarms), pure: a section of a power
// line that had N momentary incidents within the last D days (by device time of each incident's first trip)
// holds the `recurring-section` alarm; it ends when the count over the last D days falls below N. A section is
// named by the indicator at its upstream end (FaultedSection.from): the alarm belongs to that device, so the
// one-active-alarm-per-device-and-kind index keeps one alarm per section while it holds. A masked organisation
// counts every incident of the section, whatever its kind: neither the alarm's text nor the fact that it was
// raised may tell momentary from permanent (docs/decisions.md#masking).
import type { FaultedSection } from './faulted-section.js';
import type { IncidentKind } from './incident-rules.js';

export interface RecurringSectionRule {
  /** N: incidents in one section ... */
  incidents: number;
  /** ... within D days. */
  days: number;
}

/** The defaults, for an organisation whose import leaves RecurringSectionIncidents / RecurringSectionDays out. */
export const DEFAULT_RECURRING_SECTION: RecurringSectionRule = { incidents: 3, days: 30 };
/** The bounds the import and the migration's checks accept. */
export const RECURRING_SECTION_BOUNDS = { incidents: { min: 2, max: 1000 }, days: { min: 1, max: 366 } } as const;

const DAY_MS = 86_400_000;

/** An organisation's rule: its own numbers, else the defaults. */
export function recurringSectionRule(incidents: number | null, days: number | null): RecurringSectionRule {
  return { incidents: incidents ?? DEFAULT_RECURRING_SECTION.incidents, days: days ?? DEFAULT_RECURRING_SECTION.days };
}

/** An incident as the rule reads it (a row of the bounded read by power line and first trip). */
export interface CountedIncident { id: number; kind: IncidentKind; firstTripAt: number; sections: readonly Pick<FaultedSection, 'from'>[] }

/** Whether an incident counts toward the section whose upstream indicator is `from`. */
export const countsToward = (i: CountedIncident, from: string, masked: boolean): boolean =>
  (masked || i.kind === 'momentary') && i.sections.some((s) => s.from.imei === from);

/** The start of the counting window at `now` (exclusive): D days before. The store reads incidents after it. */
export const windowStart = (rule: RecurringSectionRule, now: number): number => now - rule.days * DAY_MS;

/** The incidents of the section in the window at `now`, oldest first. */
export function countedIn(incidents: readonly CountedIncident[], from: string, masked: boolean, rule: RecurringSectionRule, now: number): CountedIncident[] {
  const start = windowStart(rule, now);
  return incidents.filter((i) => i.firstTripAt > start && countsToward(i, from, masked)).sort((a, b) => a.firstTripAt - b.firstTripAt || a.id - b.id);
}

/** Whether the section is a hot spot now: at least N counted incidents in the last D days. */
export const holds = (counted: readonly CountedIncident[], rule: RecurringSectionRule): boolean => counted.length >= rule.incidents;

/**
 * When a hot spot that holds at `now` ends by time alone, if no incident comes or changes: when the N-th newest of
 * its counted incidents (`counted`, oldest first) leaves the window. The incident step judges an open alarm again
 * only then, or when an incident of its section is written (incidents/recurring-section.ts). Null: it does not hold.
 */
export function nextEndAt(counted: readonly CountedIncident[], rule: RecurringSectionRule): number | null {
  if (!holds(counted, rule)) return null;
  return counted[counted.length - rule.incidents]!.firstTripAt + rule.days * DAY_MS;
}

/**
 * The episode of a hot spot (the alarm's unique key beside device and kind): its first and newest counted incidents.
 * An episode that ended by time lost its first counted incident to the window, so a later one begins with another,
 * even when its newest is the same (an older incident written late); one that ended because an incident stopped
 * counting (its kind changed) comes back with a newer incident. Both the same needs the same first and newest
 * incidents counted again, after one between them stopped counting and another between them started.
 */
export const hotSpotEpisode = (counted: readonly CountedIncident[]): string =>
  `recurring-section:${counted[0]!.id}-${counted[counted.length - 1]!.id}`;

/**
 * The alarm's text (its detail's `summary`, shown on the board). A masked organisation's names no class: it
 * counted incidents of every kind, and says so.
 */
export function recurringSectionSummary(count: number, rule: RecurringSectionRule, sectionLabel: string, masked: boolean): string {
  return `${count} ${masked ? '' : 'momentary '}incidents within ${rule.days} days in section ${sectionLabel}`;
}
