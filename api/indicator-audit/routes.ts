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
import { acceptOnly, ApiError, badParameter } from '../errors.js';
import { callerEmail, isStorableText, jsonObjectBody, powerLineParameter, wholeNumberId } from '../request.js';
import { getRoute } from '../read-route.js';
import { writeRoute } from '../write-endpoint.js';
import { DISMISS, DISMISS_REASON_MAX, FINDING_STATES, GET_FINDINGS } from './endpoints.js';
import { FINDING_TITLES, type FindingKind } from '../../indicator-audit/findings.js';
import { dismissFinding } from '../../indicator-audit/store.js';
import { readFindings, type Listed } from './store.js';
import { withTransaction } from '../../db/transaction.js';
import { log } from '../../config/log.js';


const iso = (d: Date | null) => (d === null ? null : d.toISOString());

interface EvidenceItem { incidentId: number; verdict: string; otherPhase: boolean; firstTripAt: string | null }
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

export function indicatorAuditRoutes({ pool, auth, now = () => Date.now() }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv>; now?: () => number }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  getRoute(app, GET_FINDINGS, [auth], async (c) => {
    acceptOnly(c.req.queries(), ['state', 'powerLine'], { repeatable: false });
    const state = c.req.query('state') ?? 'open';
    if (!(FINDING_STATES as readonly string[]).includes(state)) throw badParameter('state', `must be one of ${FINDING_STATES.join(', ')}.`);
    const line = powerLineParameter(c);
    const masked = c.get('caller').maskFaultDetails;
    const rows = await readFindings(pool, c.get('caller'), { state, line, withEvidence: !masked });
    return c.json({ data: rows.map((r) => present(r, masked)) });
  });

  writeRoute(app, DISMISS, [auth, requireAdmin], async (c) => {
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
