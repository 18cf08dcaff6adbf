// What one closed incident says about each indicator on its power line (docs/decisions.md#indicator-audit).
// On a radial feeder the fault current flows from the head down to the fault, so every indicator on that path
// should trip and none beyond it. Against the imported topology an incident therefore confirms or contradicts
// each indicator that could tell: it stayed silent between two that tripped (missed), or it tripped while no
// indicator above or below it did although one above could have (unconfirmed; "other phase" when every other
// trip of the incident is on a phase it does not cover). Pure: the I/O is in record.ts.
import { coveredPhases, type Phase } from '../domain/feeder-topology.js';
import { deviceHealth, type IncidentKind, type LatestCheckIn } from '../domain/incident-rules.js';
import type { ClockLimits } from '../domain/checkin-clock.js';

export type Verdict = 'confirmed' | 'missed' | 'unconfirmed';
export const VERDICTS: readonly Verdict[] = ['confirmed', 'missed', 'unconfirmed'];

export interface AuditDevice {
  imei: string;
  upstream: string | null;
  /** null: the device is on the power line but outside the topology (the line's topology is incomplete). */
  phase: Phase | null;
  /** It can tell whether it tripped in this incident (see `couldTell`). */
  couldTell: boolean;
}

export interface AuditIncident {
  kind: IncidentKind;
  /** A section was named (incidents.sections not empty). */
  located: boolean;
  /** A tripped device had a test fault running: the trip is synthetic. */
  testFault: boolean;
  tripped: ReadonlySet<string>;
  /** Every device of the power line. */
  devices: readonly AuditDevice[];
}

export interface Evidence { imei: string; verdict: Verdict; /** unconfirmed, and every other trip is on a phase it does not cover. */ otherPhase: boolean }

export type SkipReason = 'not permanent' | 'not located' | 'test fault' | 'incomplete topology';

/**
 * A silent indicator is evidence only when it reported after the incident's last trip (its events travel
 * with its check-ins, so a later check-in without a trip means it saw none) and it is not offline by the
 * communication-lost rule (a silent offline indicator is not evidence).
 */
export function couldTell(latest: LatestCheckIn | null, lastTripAt: number, now: number, limits: ClockLimits): boolean {
  return latest !== null && latest.date > lastTripAt && deviceHealth(latest, now, limits).ok;
}

/** Only a permanent, located, real incident on a line whose every device is in the topology is evidence. */
export function skipReason(i: AuditIncident): SkipReason | null {
  // Momentary and unknown incidents are not evidence: indicators differ in how they sense a short transient
  // or a load surge, so a silent neighbour there says nothing about the indicator.
  if (i.kind !== 'permanent') return 'not permanent';
  if (!i.located) return 'not located';
  if (i.testFault) return 'test fault';
  const inTopology = new Set(i.devices.filter((d) => d.phase !== null).map((d) => d.imei));
  if (inTopology.size < i.devices.length || [...i.tripped].some((t) => !inTopology.has(t))) return 'incomplete topology';
  return null;
}

const disjoint = (a: Phase, b: Phase) => !coveredPhases(a).some((p) => coveredPhases(b).includes(p));

/**
 * The evidence of one incident, one entry per indicator it confirms or contradicts (empty when skipped).
 *
 * @example
 *   // H - M - D, fault below D, M silent but reporting:
 *   incidentEvidence({ kind: 'permanent', located: true, testFault: false, tripped: new Set(['H', 'D']), devices })
 *   // [{ imei: 'D', verdict: 'confirmed', ... }, { imei: 'H', verdict: 'confirmed', ... }, { imei: 'M', verdict: 'missed', ... }]
 */
export function incidentEvidence(i: AuditIncident): Evidence[] {
  if (skipReason(i) !== null) return [];
  const byImei = new Map(i.devices.map((d) => [d.imei, d]));
  const ancestors = (imei: string): AuditDevice[] => {
    const out: AuditDevice[] = [];
    const seen = new Set([imei]);
    for (let up = byImei.get(imei)?.upstream ?? null; up !== null && byImei.has(up) && !seen.has(up); up = byImei.get(up)!.upstream) {
      seen.add(up);
      out.push(byImei.get(up)!);
    }
    return out;
  };
  // Indicators with a tripped indicator below them, and those with two tripped on one path below them.
  const trippedBelow = new Set<string>();
  for (const t of i.tripped) for (const a of ancestors(t)) trippedBelow.add(a.imei);
  const twoBelow = new Set<string>();
  for (const t of i.tripped) if (trippedBelow.has(t)) for (const a of ancestors(t)) twoBelow.add(a.imei);

  const evidence: Evidence[] = [];
  for (const d of i.devices) {
    const up = ancestors(d.imei);
    const trippedAbove = up.some((a) => i.tripped.has(a.imei));
    if (i.tripped.has(d.imei)) {
      if (trippedAbove || trippedBelow.has(d.imei)) evidence.push({ imei: d.imei, verdict: 'confirmed', otherPhase: false });
      else if (up.some((a) => a.couldTell)) {
        // No indicator above or below confirms it, though one above reported: a trip only its own reading supports.
        const others = [...i.tripped].filter((t) => t !== d.imei).map((t) => byImei.get(t)!.phase!);
        evidence.push({ imei: d.imei, verdict: 'unconfirmed', otherPhase: others.length > 0 && others.every((p) => disjoint(p, d.phase!)) });
      }
    } else if (d.couldTell && ((trippedAbove && trippedBelow.has(d.imei)) || twoBelow.has(d.imei))) {
      // The fault current passed it: two tripped on its path (one above and one below, or two below) say so.
      evidence.push({ imei: d.imei, verdict: 'missed', otherPhase: false });
    }
  }
  return evidence.sort((a, b) => (a.imei < b.imei ? -1 : 1));
}
