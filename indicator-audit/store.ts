// The indicator audit's SQL (migrations 0029, 0031): evidence rows, findings, dismissals. The rules are evidence.ts
// and findings.ts. Everything is an organisation's, keyed by (OrganizationID, IMEINumber), and judged from the
// device's joining that organisation on (docs/decisions.md#indicator-audit-per-organisation).
import type pg from 'pg';
import type { Evidence, Verdict } from './evidence.js';
import type { EvidenceRow, FindingKind, Judgement } from './findings.js';
import { AUDIT_THRESHOLDS } from './findings.js';

/** Whether a test fault ran on one of `imeis` within an hour of the trips (its synthetic check-in is dated by the server's clock). */
export async function testFaultNear(client: pg.ClientBase, imeis: readonly string[], firstTripAt: number, lastTripAt: number): Promise<boolean> {
  const { rows: [r] } = await client.query<{ yes: boolean }>(
    `select exists (select 1 from test_faults where "IMEINumber" = any($1::text[])
                       and started_at between $2::timestamptz - interval '1 hour' and $3::timestamptz + interval '1 hour') as yes`,
    [imeis, new Date(firstTripAt), new Date(lastTripAt)],
  );
  return r?.yes ?? false;
}

/** Adds an incident's evidence; a row already there (a replay) stays as it was. Returns the indicators it added rows for. */
export async function addEvidence(client: pg.ClientBase, e: { incidentId: number; organizationId: string; powerLineId: string; evidence: readonly Evidence[]; at: Date }): Promise<string[]> {
  if (e.evidence.length === 0) return [];
  const { rows } = await client.query<{ imei: string }>(
    `insert into indicator_evidence (incident_id, "IMEINumber", "OrganizationID", "PowerLineID", verdict, other_phase, recorded_at)
     select $1, imei, $2, $3, verdict, other, $4 from unnest($5::text[], $6::text[], $7::boolean[]) with ordinality as t(imei, verdict, other, n) order by n
     on conflict do nothing returning "IMEINumber" as imei`,
    [e.incidentId, e.organizationId, e.powerLineId, e.at, e.evidence.map((x) => x.imei), e.evidence.map((x) => x.verdict), e.evidence.map((x) => x.otherPhase)],
  );
  return rows.map((r) => r.imei);
}

/**
 * Each indicator's recent evidence in `organizationId` since its last dismissed finding there, oldest first: only
 * evidence recorded since the device joined the organisation, and none for a device now in another one.
 */
export async function recentEvidence(client: pg.ClientBase, organizationId: string, imeis: readonly string[]): Promise<Map<string, EvidenceRow[]>> {
  const { rows } = await client.query<{ imei: string; incident_id: string; verdict: Verdict; other_phase: boolean }>(
    `select e."IMEINumber" as imei, e.incident_id, e.verdict, e.other_phase
       from unnest($2::text[]) as x(imei)
       join device_information d on d."IMEINumber" = x.imei and d."OrganizationID" = $1::text
       cross join lateral (
         select y.* from indicator_evidence y
          where y."OrganizationID" = $1::text and y."IMEINumber" = x.imei and y.recorded_at >= d."OrganizationSince"
            and y.seq > coalesce((select max(f.dismissed_through) from indicator_findings f
                                   where f."OrganizationID" = $1::text and f."IMEINumber" = x.imei and f.dismissed_at is not null), 0)
          order by y.seq desc limit $3) e
      order by e."IMEINumber", e.seq`,
    [organizationId, imeis, AUDIT_THRESHOLDS.recentIncidents],
  );
  const out = new Map<string, EvidenceRow[]>(imeis.map((i) => [i, []]));
  for (const r of rows) out.get(r.imei)!.push({ incidentId: Number(r.incident_id), verdict: r.verdict, otherPhase: r.other_phase });
  return out;
}

/** Who is recorded as closing a finding that no longer belongs to the device's stay in its organisation (upsertFinding). */
export const AUDIT_ACTOR = 'faultline';

/**
 * Raises the indicator's open finding in the organisation, or brings it up to date with its evidence (kind,
 * incidents). An indicator has at most one open finding (indicator_findings_open): one left open by another
 * organisation, or by an earlier stay in this one, is closed first, its audit saying why, so it neither follows
 * the device nor takes its new evidence (docs/decisions.md#indicator-audit-per-organisation).
 */
export async function upsertFinding(client: pg.ClientBase, f: { organizationId: string; imei: string; powerLineId: string; judgement: Judgement; at: Date }): Promise<void> {
  const j = f.judgement;
  await client.query(
    `update indicator_findings f
        set dismissed_at = $3, dismissed_by = $4, dismiss_reason = 'the indicator left the organisation',
            dismissed_through = coalesce((select max(e.seq) from indicator_evidence e where e."OrganizationID" = f."OrganizationID" and e."IMEINumber" = f."IMEINumber"), 0)
       from device_information d
      where f."IMEINumber" = $2::text and f.dismissed_at is null and d."IMEINumber" = f."IMEINumber"
        and (f."OrganizationID" <> $1::text or f.raised_at < d."OrganizationSince")`,
    [f.organizationId, f.imei, f.at, AUDIT_ACTOR],
  );
  await client.query(
    `insert into indicator_findings ("OrganizationID", "IMEINumber", "PowerLineID", kind, incidents, contradictions, considered, raised_at, updated_at)
     values ($1, $2, $3, $4, $5::bigint[], $6, $7, $8, $8)
     on conflict ("IMEINumber") where dismissed_at is null do update
        set kind = excluded.kind, incidents = excluded.incidents, contradictions = excluded.contradictions, considered = excluded.considered,
            "PowerLineID" = excluded."PowerLineID", updated_at = excluded.updated_at
      where indicator_findings."OrganizationID" = excluded."OrganizationID"`,
    [f.organizationId, f.imei, f.powerLineId, j.kind, j.incidents, j.contradictions, j.considered, f.at],
  );
}

export interface FindingRow {
  id: string; OrganizationID: string; IMEINumber: string; PowerLineID: string; kind: FindingKind; incidents: string[];
  contradictions: number; considered: number; raised_at: Date; updated_at: Date;
  dismissed_at: Date | null; dismissed_by: string | null; dismiss_reason: string | null;
}

/**
 * Dismisses an open finding of the organisation: who, when and why stay on the row, and the indicator's
 * evidence so far never raises a finding again. null: no such open finding.
 */
export async function dismissFinding(client: pg.ClientBase, d: { id: string; organizationId: string; by: string; reason: string; at: Date }): Promise<FindingRow | null> {
  const { rows: [row] } = await client.query<FindingRow>(
    `update indicator_findings f
        set dismissed_at = $4, dismissed_by = $3, dismiss_reason = $5,
            dismissed_through = coalesce((select max(seq) from indicator_evidence e where e."OrganizationID" = f."OrganizationID" and e."IMEINumber" = f."IMEINumber"), 0)
      where f.id = $1::bigint and f."OrganizationID" = $2::text and f.dismissed_at is null
      returning f.*`,
    [d.id, d.organizationId, d.by, d.at, d.reason],
  );
  return row ?? null;
}
