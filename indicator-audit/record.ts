// The incident worker calls this in the transaction of the step that closes an incident
// (docs/decisions.md#indicator-audit): the incident's evidence about every indicator of its power line, then
// each indicator it added evidence for judged again, its finding raised or brought up to date. A replayed
// step adds no evidence row twice (unique per indicator and incident), and only indicators that got a new
// row are judged, so a replay changes nothing.
import type pg from 'pg';
import type { Phase } from '../domain/feeder-topology.js';
import type { ClockLimits } from '../domain/checkin-clock.js';
import type { IncidentKind, LatestCheckIn } from '../domain/incident-rules.js';
import { couldTell, incidentEvidence, skipReason } from './evidence.js';
import { judge } from './findings.js';
import { addEvidence, recentEvidence, testFaultNear, upsertFinding } from './store.js';

export interface ClosedIncident {
  id: number;
  organizationId: string;
  powerLineId: string;
  kind: IncidentKind;
  located: boolean;
  tripped: readonly string[];
  firstTripAt: number;
  lastTripAt: number;
  /** Every device of the power line, with its topology and latest check-in (incidents/store.ts lineDevices). */
  lineDevices: readonly { imei: string; upstream: string | null; phase: Phase | null; latest: LatestCheckIn | null }[];
  now: Date;
  clockLimits: ClockLimits;
}

export async function recordIndicatorEvidence(client: pg.ClientBase, i: ClosedIncident): Promise<void> {
  const now = i.now.getTime();
  const input = {
    kind: i.kind, located: i.located, testFault: false, tripped: new Set(i.tripped),
    devices: i.lineDevices.map((d) => ({ imei: d.imei, upstream: d.upstream, phase: d.phase, couldTell: couldTell(d.latest, i.lastTripAt, now, i.clockLimits) })),
  };
  if (skipReason(input) !== null) return;
  input.testFault = await testFaultNear(client, i.tripped, i.firstTripAt, i.lastTripAt);
  const added = await addEvidence(client, { incidentId: i.id, organizationId: i.organizationId, powerLineId: i.powerLineId, evidence: incidentEvidence(input), at: i.now });
  if (added.length === 0) return;
  for (const [imei, rows] of await recentEvidence(client, i.organizationId, added)) {
    const judgement = judge(rows);
    if (judgement) await upsertFinding(client, { organizationId: i.organizationId, imei, powerLineId: i.powerLineId, judgement, at: i.now });
  }
}
