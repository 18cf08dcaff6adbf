// What one incident adds to the reliability day tables (schemas/migrations/0026_reliability_days.sql;
// docs/decisions.md#reliability-analytics-issue-43-rel-core): one count of its kind on its line's day and on
// the day of each section it was located in, with its tripped indicators. The incident worker writes the
// difference between an incident's contribution before and after a step, in the step's transaction, so the
// tables move with every change of kind, first trip, sections or indicators, and a step that changes none of
// them writes nothing: applying the same state twice adds zero.

export type ReliabilityKind = 'permanent' | 'momentary' | 'unknown';

export interface IncidentFacts {
  organizationId: string;
  powerLineId: string;
  kind: ReliabilityKind;
  /** Device time of the first trip (ms). */
  firstTripAt: number;
  /** The faulted sections (domain/faulted-section.ts): the upstream indicator and the label. */
  sections: readonly { from: { imei: string }; label: string }[];
  trippedIndicators: number;
}

/** Signed counts of one row of a day table. */
export interface Counts { permanent: number; momentary: number; unknown: number; trippedIndicators: number }

export interface LineDayDelta extends Counts { organizationId: string; powerLineId: string; day: string }
export interface SectionDayDelta extends LineDayDelta { sectionImei: string; label: string }
export interface ReliabilityDelta { lines: LineDayDelta[]; sections: SectionDayDelta[] }

/** The UTC calendar day (YYYY-MM-DD) of a device time: the day tables' fixed zone. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function counts(kind: ReliabilityKind, tripped: number, sign: 1 | -1): Counts {
  return {
    permanent: kind === 'permanent' ? sign : 0, momentary: kind === 'momentary' ? sign : 0, unknown: kind === 'unknown' ? sign : 0,
    trippedIndicators: sign * tripped,
  };
}

const isZero = (c: Counts) => c.permanent === 0 && c.momentary === 0 && c.unknown === 0 && c.trippedIndicators === 0;
const add = (a: Counts, b: Counts): Counts => ({
  permanent: a.permanent + b.permanent, momentary: a.momentary + b.momentary, unknown: a.unknown + b.unknown, trippedIndicators: a.trippedIndicators + b.trippedIndicators,
});

/**
 * The rows to add to move an incident's contribution from `before` (null: it did not exist) to `after`.
 * Rows whose sum is zero are left out; each section counts once per incident whatever its phase entries.
 *
 * @example
 *   reliabilityDelta(null, unknownIncident)   // +1 unknown on its line's day
 *   reliabilityDelta(unknownIncident, { ...unknownIncident, kind: 'permanent' }) // -1 unknown, +1 permanent
 */
export function reliabilityDelta(before: IncidentFacts | null, after: IncidentFacts | null): ReliabilityDelta {
  const lines = new Map<string, LineDayDelta>();
  const sections = new Map<string, SectionDayDelta>();
  for (const [facts, sign] of [[before, -1], [after, 1]] as const) {
    if (facts === null) continue;
    const day = utcDay(facts.firstTripAt);
    const c = counts(facts.kind, facts.trippedIndicators, sign);
    const lineKey = JSON.stringify([facts.organizationId, facts.powerLineId, day]);
    const line = lines.get(lineKey);
    lines.set(lineKey, { organizationId: facts.organizationId, powerLineId: facts.powerLineId, day, ...(line ? add(line, c) : c) });
    const seen = new Set<string>();
    for (const s of facts.sections) {
      if (seen.has(s.from.imei)) continue;
      seen.add(s.from.imei);
      const key = JSON.stringify([facts.organizationId, facts.powerLineId, day, s.from.imei]);
      const had = sections.get(key);
      // The label of the later state wins (after is applied second).
      sections.set(key, { organizationId: facts.organizationId, powerLineId: facts.powerLineId, day, sectionImei: s.from.imei, label: s.label, ...(had ? add(had, c) : c) });
    }
  }
  return { lines: [...lines.values()].filter((r) => !isZero(r)), sections: [...sections.values()].filter((r) => !isZero(r)) };
}
