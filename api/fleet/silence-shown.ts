// A silent device's triage as one caller may see it (docs/decisions.md#reach-applied-once): the evidence of a
// possible de-energised section or a carrier cluster names other indicators (the section's point, its upstream
// end, the group's key), and one outside the caller's reach is never named, as in an incident's sections
// (domain/section-reach.ts): its IMEI and name are nulled, a label naming it gives way to OUTSIDE_REACH_LABEL, and
// a group key made from it is not shown.
import { OUTSIDE_REACH_LABEL } from '../../domain/section-reach.js';

const IMEI = /\b\d{14,16}\b/g;

export interface StoredSilence { evidence: Record<string, unknown>; groupKey: string | null }

/** Every IMEI the triage's evidence and group key name (to ask which are in reach). */
export const silenceImeis = (s: StoredSilence): string[] => [...new Set(`${JSON.stringify(s.evidence)} ${s.groupKey ?? ''}`.match(IMEI) ?? [])];

const isEnd = (v: unknown): v is { imei: string; name: string | null } => typeof v === 'object' && v !== null && typeof (v as { imei?: unknown }).imei === 'string';

/** The evidence and key with every indicator outside `inReach` unnamed. */
export function silenceAsShown(s: StoredSilence, inReach: (imei: string) => boolean): StoredSilence {
  const hidden = new Set<string>(silenceImeis(s).filter((imei) => !inReach(imei)));
  if (hidden.size === 0) return s;
  for (const v of Object.values(s.evidence)) if (isEnd(v) && hidden.has(v.imei) && v.name) hidden.add(v.name);
  const names = (text: string) => [...hidden].some((h) => text.includes(h));
  const evidence = Object.fromEntries(Object.entries(s.evidence).map(([k, v]) => {
    if (isEnd(v)) return [k, hidden.has(v.imei) ? { ...v, imei: null, name: null } : v];
    if (typeof v === 'string' && names(v)) return [k, k === 'section' ? OUTSIDE_REACH_LABEL : null];
    return [k, v];
  }));
  return { evidence, groupKey: s.groupKey !== null && names(s.groupKey) ? null : s.groupKey };
}
