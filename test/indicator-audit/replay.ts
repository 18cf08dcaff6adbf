// The pure rule run over a simulator scenario as the incident worker would run it (indicator-audit/record.ts):
// each incident's evidence when it closes, every indicator judged over its evidence after each incident.
import { couldTell, incidentEvidence, type AuditIncident } from '../../indicator-audit/evidence.js';
import { judge, type EvidenceRow, type FindingKind } from '../../indicator-audit/findings.js';
import { faultedSections, type FeederDevice } from '../../domain/faulted-section.js';
import { deviceHealth, incidentKind } from '../../domain/incident-rules.js';
import { DEFAULT_FLOOR_S } from '../../domain/checkin-clock.js';
import type { FeederIncident, FeederScenario } from '../../simulator/feeder-faults.js';

const limits = { floorS: DEFAULT_FLOOR_S, ceilingS: 26 * 3600 };

/** What the incident worker holds when the incident closes, as the rule's input (the same domain rules it runs). */
export function auditInput(s: FeederScenario, i: FeederIncident): AuditIncident {
  const line = s.devices.filter((d) => d.powerLineId === i.powerLineId);
  const lastTripAt = Math.max(i.at, ...i.tripped.map((t) => t.at));
  const latest = (imei: string) => {
    const l = i.latest.get(imei)!;
    return { date: l.date, actualOngoingFault: l.ongoingFault, expectedS: l.expectedS };
  };
  const tripped = new Set(i.tripped.map((t) => t.imei));
  const feeder: FeederDevice[] = line.flatMap((d) => (d.phase === null ? [] : [{
    imei: d.imei, name: d.name, upstream: d.upstream, phase: d.phase, section: d.section, health: deviceHealth(latest(d.imei), i.at + 60_000, limits),
  }]));
  return {
    kind: incidentKind(i.tripped.map((t) => t.eventType)),
    located: faultedSections(feeder, tripped).length > 0,
    testFault: i.testFault,
    tripped,
    devices: line.map((d) => ({ imei: d.imei, upstream: d.upstream, phase: d.phase, couldTell: couldTell(latest(d.imei), lastTripAt, i.closesAt, limits) })),
  };
}

export interface Run { findings: Map<string, { kind: FindingKind; atIncident: number }>; pathIncidents: Map<string, number>; flaggedAfter: Map<string, number> }

/** Runs `count` incidents (or until `until` says stop), judging each indicator after every incident with evidence about it. */
export function run(s: FeederScenario, count: number, watch: string[] = [], until?: (r: Run) => boolean): Run {
  const evidence = new Map<string, EvidenceRow[]>();
  const r: Run = { findings: new Map(), pathIncidents: new Map(watch.map((w) => [w, 0])), flaggedAfter: new Map() };
  for (let n = 0; n < count && !(until?.(r) ?? false); n++) {
    const i = s.next();
    for (const w of watch) {
      if (i.kind === 'permanent' && !i.testFault && (i.path.includes(w) || i.plannedPath.includes(w))) r.pathIncidents.set(w, r.pathIncidents.get(w)! + 1);
    }
    for (const e of incidentEvidence(auditInput(s, i))) {
      const rows = [...(evidence.get(e.imei) ?? []), { incidentId: i.seq, verdict: e.verdict, otherPhase: e.otherPhase }];
      evidence.set(e.imei, rows);
      const j = judge(rows);
      if (j) r.findings.set(e.imei, { kind: j.kind, atIncident: i.seq });
      if (j && !r.flaggedAfter.has(e.imei)) r.flaggedAfter.set(e.imei, r.pathIncidents.get(e.imei) ?? -1);
    }
  }
  return r;
}

