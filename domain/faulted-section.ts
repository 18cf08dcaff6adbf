// The faulted section of a radial feeder (docs/decisions.md#feeder-incidents): every indicator between the
// source and the fault sees the fault current and trips, those beyond it do not, so the fault lies below each
// tripped indicator that has no tripped indicator anywhere below it, and above the untripped indicators
// directly below that one. Two such indicators on different laterals are two faults, each its own section.
// An indicator that cannot tell us whether it tripped (silent, communication lost) does not bound the
// section: the section spans it down to the next indicators that can, and says which one and why.
import type { Phase } from './feeder-topology.js';

export type Health = { ok: true } | { ok: false; reason: string };

export interface FeederDevice {
  imei: string;
  name: string | null;
  upstream: string | null;
  phase: Phase;
  /** The label of the stretch of line directly below this indicator. */
  section: string | null;
  health: Health;
}

export interface SectionEnd { imei: string; name: string | null }

export interface FaultedSection {
  phase: Phase;
  /** The furthest-downstream tripped indicator: the section starts below it. */
  from: SectionEnd;
  /** The indicators that bound it below (untripped, reporting); empty: the section runs to the end of the line. */
  to: SectionEnd[];
  /** Indicators inside the widened section, and why each could not bound it. */
  spans: (SectionEnd & { reason: string })[];
  /** The from-indicator's Section label, else "below <name>". */
  label: string;
}

const end = (d: FeederDevice): SectionEnd => ({ imei: d.imei, name: d.name });

/**
 * The faulted sections for a set of tripped indicators of one feeder (devices: the power line's topology).
 * Tripped indicators outside the topology are ignored. Sorted by phase, then by the from-indicator.
 *
 * @example
 *   faultedSections([head, a, b], new Set([head.imei, a.imei])) // [{ from: a, to: [b], ... }]
 */
export function faultedSections(devices: readonly FeederDevice[], tripped: ReadonlySet<string>): FaultedSection[] {
  const byImei = new Map(devices.map((d) => [d.imei, d]));
  const children = new Map<string, FeederDevice[]>();
  for (const d of devices) {
    if (d.upstream !== null && byImei.has(d.upstream)) children.set(d.upstream, [...(children.get(d.upstream) ?? []), d]);
  }
  for (const list of children.values()) list.sort((a, b) => (a.imei < b.imei ? -1 : 1));
  // Indicators with a tripped indicator somewhere below them: walk up from every tripped one.
  const trippedBelow = new Set<string>();
  for (const imei of tripped) {
    const seen = new Set<string>([imei]);
    for (let up = byImei.get(imei)?.upstream ?? null; up !== null && byImei.has(up) && !seen.has(up); up = byImei.get(up)!.upstream) {
      seen.add(up);
      trippedBelow.add(up);
    }
  }
  const sections: FaultedSection[] = [];
  for (const d of devices) {
    if (!tripped.has(d.imei) || trippedBelow.has(d.imei)) continue;
    const to: SectionEnd[] = [];
    const spans: FaultedSection['spans'] = [];
    const walk = (below: readonly FeederDevice[]) => {
      for (const c of below) {
        if (c.health.ok) to.push(end(c));
        else {
          spans.push({ ...end(c), reason: c.health.reason });
          walk(children.get(c.imei) ?? []);
        }
      }
    };
    walk(children.get(d.imei) ?? []);
    sections.push({ phase: d.phase, from: end(d), to, spans, label: d.section ?? `below ${d.name ?? d.imei}` });
  }
  return sections.sort((a, b) => (a.phase === b.phase ? (a.from.imei < b.from.imei ? -1 : 1) : a.phase < b.phase ? -1 : 1));
}

/** One line of text naming a section, for OMS notifications and logs. */
export function describeSection(s: FaultedSection): string {
  const name = (e: SectionEnd) => e.name ?? e.imei;
  const below = s.to.length === 0 ? 'to the end of the line' : `above ${s.to.map(name).join(', ')}`;
  const wide = s.spans.length === 0 ? '' : `; widened over ${s.spans.map((x) => `${name(x)} (${x.reason})`).join(', ')}`;
  return `${s.label} (phase ${s.phase}): below ${name(s.from)}, ${below}${wide}`;
}
