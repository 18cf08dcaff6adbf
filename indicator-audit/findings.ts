// When an indicator's evidence becomes a finding (docs/decisions.md#indicator-audit). The thresholds are
// here and only here; the decisions page states them. Pure: record.ts reads the evidence and writes findings.
import type { Verdict } from './evidence.js';

export const AUDIT_THRESHOLDS = {
  /** Only an indicator's most recent evidence counts, so one that worked for years and then failed is flagged soon. */
  recentIncidents: 10,
  /** At least this many contradicting incidents (missed or unconfirmed) among the recent ones... */
  minContradictions: 3,
  /** ...and at least this share of the recent ones contradicting. */
  minContradictionShare: 0.5,
} as const;

export type FindingKind = 'failed-or-mis-set' | 'topology-or-phase';
export const FINDING_KINDS: readonly FindingKind[] = ['failed-or-mis-set', 'topology-or-phase'];
export const FINDING_TITLES: Record<FindingKind, string> = {
  'failed-or-mis-set': 'likely failed or mis-set indicator',
  'topology-or-phase': 'likely topology or phase label error',
};

/** One incident's evidence about one indicator, as stored. */
export interface EvidenceRow { incidentId: number; verdict: Verdict; otherPhase: boolean }

export interface Judgement { kind: FindingKind; /** The contradicting incidents among the recent ones, oldest first. */ incidents: number[]; contradictions: number; considered: number }

/**
 * The finding an indicator's evidence supports, or null. `rows`: its evidence since its last dismissed
 * finding, oldest first (as recorded). A phase label error shows as trips that co-trip only with another phase; when at
 * least half of its unconfirmed trips are such, the finding names the topology, else the indicator.
 *
 * @example
 *   judge([{ incidentId: 1, verdict: 'missed', otherPhase: false }, ...two more missed]) // { kind: 'failed-or-mis-set', incidents: [1, 2, 3], ... }
 */
export function judge(rows: readonly EvidenceRow[]): Judgement | null {
  const recent = rows.slice(-AUDIT_THRESHOLDS.recentIncidents);
  const against = recent.filter((r) => r.verdict !== 'confirmed');
  if (against.length < AUDIT_THRESHOLDS.minContradictions || against.length < AUDIT_THRESHOLDS.minContradictionShare * recent.length) return null;
  const unconfirmed = against.filter((r) => r.verdict === 'unconfirmed');
  const otherPhase = unconfirmed.filter((r) => r.otherPhase).length;
  const kind: FindingKind = otherPhase > 0 && otherPhase * 2 >= unconfirmed.length ? 'topology-or-phase' : 'failed-or-mis-set';
  return { kind, incidents: against.map((r) => r.incidentId), contradictions: against.length, considered: recent.length };
}
