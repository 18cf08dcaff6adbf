// An incident's faulted sections as one caller may see them (docs/decisions.md#reach-applied-once): the
// stretch of line stays whole (phase, how many indicators bound or widen it, why), but an indicator outside
// the caller's reach is never named, neither its IMEI nor its name. A label that names the upstream
// indicator ("below <name or IMEI>", faulted-section.ts) gives way to OUTSIDE_REACH_LABEL; the import's
// Section, a stretch and not a device, stands.
import type { FaultedSection, SectionEnd } from './faulted-section.js';

/** What a section below an indicator outside the caller's reach is called when the import gave it no Section. */
export const OUTSIDE_REACH_LABEL = 'Section below an indicator outside your reach';

/** A section's end as shown: null IMEI and name when the indicator is outside the caller's reach. */
export interface ShownEnd { imei: string | null; name: string | null }
export interface ShownSection { phase: FaultedSection['phase']; from: ShownEnd; to: ShownEnd[]; spans: (ShownEnd & { reason: string })[]; label: string }

/** Every indicator a list of sections names (to ask which of them are in reach). */
export const sectionImeis = (sections: readonly FaultedSection[]): string[] =>
  sections.flatMap((s) => [s.from, ...s.to, ...s.spans].map((e) => e.imei));

/**
 * The section as a caller whose reach `inReach` answers may see it. Everything in reach: the section itself.
 *
 * @example
 *   sectionInReach({ from: { imei: 'x', name: null }, label: 'below x', ... }, () => false).label // OUTSIDE_REACH_LABEL
 */
export function sectionInReach(s: FaultedSection, inReach: (imei: string) => boolean): ShownSection {
  const shown = <E extends SectionEnd>(e: E): E | (Omit<E, 'imei' | 'name'> & ShownEnd) => (inReach(e.imei) ? e : { ...e, imei: null, name: null });
  const namesFrom = s.label === `below ${s.from.name ?? s.from.imei}`;
  return {
    ...s,
    from: shown(s.from), to: s.to.map(shown), spans: s.spans.map(shown),
    label: namesFrom && !inReach(s.from.imei) ? OUTSIDE_REACH_LABEL : s.label,
  };
}
