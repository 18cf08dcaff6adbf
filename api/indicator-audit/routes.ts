// GET /api/indicator-audit/findings and POST /api/indicator-audit/findings/:id/dismiss
// (docs/decisions.md#indicator-audit): the indicators whose incidents contradict the topology, each with the
// incidents as evidence. Everyone sees the findings of the devices in reach; an organisation admin dismisses
// one with a reason (who, when and why stay on the finding). The evidence names incidents, never their kind; a
// masked organisation reads no evidence at all (present: the audit reads permanent incidents only).
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import type { AuthEnv } from '../auth/caller.js';
import { requireAdmin } from '../auth/index.js';
import { reachCondition } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';
import { acceptOnly, ApiError, badParameter } from '../errors.js';
import { callerEmail, isStorableText, jsonObjectBody, limitBody, wholeNumberId } from '../request.js';
import { FINDING_TITLES, type FindingKind } from '../../indicator-audit/findings.js';
import { dismissFinding, type FindingRow } from '../../indicator-audit/store.js';
import { withTransaction } from '../../db/transaction.js';
import { log } from '../../config/log.js';

export const FINDINGS_PATH = '/api/indicator-audit/findings';
export const DISMISS_PATH = '/api/indicator-audit/findings/:id/dismiss';
export const FINDING_STATES = ['open', 'dismissed', 'all'] as const;
export const DISMISS_REASON_MAX = 500;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

interface EvidenceItem { incidentId: number; verdict: string; otherPhase: boolean; firstTripAt: string | null }
/** A row of the list; evidence and tally only for a caller who is not masked (EVIDENCE_COLUMNS). */
type Listed = FindingRow & { name: string | null; phase: string | null; powerLineName: string | null; evidence?: { incidentId: string; verdict: string; otherPhase: boolean; firstTripAt: string | null }[]; tally?: Record<string, number> };

const day = (d: Date | null) => (d === null ? null : `${d.toISOString().slice(0, 10)}T00:00:00.000Z`);

/**
 * A finding as the caller reads it. The audit judges permanent incidents only, so for an organisation that masks
 * fault details its evidence (incident ids and times), its counts and its exact times would name which incidents
 * were permanent: a masked caller reads the indicator, the finding and its state, with the days it was raised and
 * updated (docs/decisions.md#indicator-audit).
 */
function present(r: Listed, masked: boolean) {
  const finding = {
    id: Number(r.id), IMEINumber: r.IMEINumber, name: r.name, phase: r.phase, powerLineId: r.PowerLineID, powerLineName: r.powerLineName,
    kind: r.kind, title: FINDING_TITLES[r.kind as FindingKind],
    dismissed: r.dismissed_at === null ? null : { at: iso(r.dismissed_at), by: r.dismissed_by, reason: r.dismiss_reason },
  };
  if (masked) return { ...finding, raisedAt: day(r.raised_at), updatedAt: day(r.updated_at) };
  return {
    ...finding, contradictions: r.contradictions, considered: r.considered, raisedAt: iso(r.raised_at), updatedAt: iso(r.updated_at),
    agreement: { confirmed: r.tally?.confirmed ?? 0, missed: r.tally?.missed ?? 0, unconfirmed: r.tally?.unconfirmed ?? 0 },
    evidence: (r.evidence ?? []).map((e): EvidenceItem => ({ incidentId: Number(e.incidentId), verdict: e.verdict, otherPhase: e.otherPhase, firstTripAt: e.firstTripAt })),
  };
}

/**
 * The evidence: the finding's contradicting incidents with what each said; the tally: the indicator's evidence per
 * verdict. Both the finding's organisation's only, recorded since the device joined it. Not computed for a masked
 * caller, who reads neither (present).
 */
const EVIDENCE_COLUMNS = `,
  coalesce((select json_agg(json_build_object('incidentId', e.incident_id, 'verdict', e.verdict, 'otherPhase', e.other_phase, 'firstTripAt', i.first_trip_at) order by e.seq)
              from indicator_evidence e join incidents i on i.id = e.incident_id and i."OrganizationID" = f."OrganizationID"
             where e."OrganizationID" = f."OrganizationID" and e."IMEINumber" = f."IMEINumber" and e.recorded_at >= d."OrganizationSince"
               and e.incident_id = any(f.incidents)), '[]') as evidence,
  coalesce((select json_object_agg(v.verdict, v.n) from (select e.verdict, count(*)::int as n from indicator_evidence e
              where e."OrganizationID" = f."OrganizationID" and e."IMEINumber" = f."IMEINumber" and e.recorded_at >= d."OrganizationSince"
              group by e.verdict) v), '{}') as tally`;

export function indicatorAuditRoutes({ pool, auth, now = () => Date.now() }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv>; now?: () => number }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  app.get(FINDINGS_PATH, auth, async (c) => {
    acceptOnly(c.req.queries(), ['state', 'powerLine'], { repeatable: false });
    const state = c.req.query('state') ?? 'open';
    if (!(FINDING_STATES as readonly string[]).includes(state)) throw badParameter('state', `must be one of ${FINDING_STATES.join(', ')}.`);
    const line = c.req.query('powerLine');
    if (line !== undefined && (line.length === 0 || line.length > 100)) throw badParameter('powerLine', 'must be a power line id (1 to 100 characters).');
    const masked = c.get('caller').maskFaultDetails;
    const p = new SqlParams();
    // The organisation's findings from the device's joining it on (docs/decisions.md#indicator-audit-per-organisation).
    const where = [`f."OrganizationID" = ${p.add(c.get('caller').org)}::text`, reachCondition(c.get('caller'), p), 'f.raised_at >= d."OrganizationSince"'];
    if (state === 'open') where.push('f.dismissed_at is null');
    if (state === 'dismissed') where.push('f.dismissed_at is not null');
    if (line !== undefined) where.push(`f."PowerLineID" = ${p.add(line)}::text`);
    const { rows } = await pool.query<Listed>(
      `select f.*, d."Real_Name" as name, d."Phase" as phase, pl.name as "powerLineName"${masked ? '' : EVIDENCE_COLUMNS}
         from indicator_findings f join device_information d on d."IMEINumber" = f."IMEINumber"
         left join power_lines pl on pl."Id" = f."PowerLineID"
        where ${where.join(' and ')}
        order by f.id desc limit 500`,
      p.values,
    );
    return c.json({ data: rows.map((r) => present(r, masked)) });
  });

  app.post(DISMISS_PATH, auth, requireAdmin, limitBody(4096), async (c) => {
    const id = String(wholeNumberId(c.req.param('id'), 'a finding'));
    const body = await jsonObjectBody(c);
    const unknown = Object.keys(body).filter((k) => k !== 'reason');
    if (unknown.length > 0) throw new ApiError('INVALID_BODY', `Unknown field "${unknown[0]!.slice(0, 40)}": only "reason" is accepted.`, { field: unknown[0]!.slice(0, 40) });
    const reason = typeof body.reason === 'string' ? body.reason.trim() : '';
    if (reason.length === 0 || reason.length > DISMISS_REASON_MAX || !isStorableText(reason)) {
      throw new ApiError('INVALID_BODY', `"reason" is required: why the finding is dismissed (1 to ${DISMISS_REASON_MAX} characters of text).`, { field: 'reason' });
    }
    const caller = c.get('caller');
    const by = await callerEmail(pool, caller);
    const row = await withTransaction(pool, (client) => dismissFinding(client, { id, organizationId: caller.org, by, reason, at: new Date(now()) }));
    if (!row) throw new ApiError('NOT_FOUND', 'No open finding with this id.', { id });
    log.info({ component: 'indicator-audit', finding: Number(row.id), imei: row.IMEINumber, by }, 'finding dismissed');
    return c.json({ id: Number(row.id), dismissed: { at: iso(row.dismissed_at), by: row.dismissed_by, reason: row.dismiss_reason } });
  });
  return app;
}
