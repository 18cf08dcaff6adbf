// The cause of an incident (issue 43 item 3; docs/reliability-export.md#causes): an operator records one id of
// the organisation's list with POST /api/incidents/:id/cause, for an incident in the caller's reach (the
// same reach as reading it, like acknowledging an alarm); every record is kept (who, when), the newest is the
// cause. The list: GET /api/incident-causes (everyone), PUT (the organisation's admins); without one stored,
// the default list (domain/incident-causes.ts).
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { causeListProblems, DEFAULT_INCIDENT_CAUSES, readCauseRecord } from '../../domain/incident-causes.js';
import type { AuthEnv, Caller } from '../auth/caller.js';
import { requireAdmin } from '../auth/require-auth.js';
import { SqlParams } from '../device-records/sql.js';
import { acceptOnly, ApiError } from '../errors.js';
import { jsonObjectBody, limitJsonBody } from '../json-body.js';
import { isStorableText } from '../text-input.js';
import { causeHistory, causeList } from './cause-store.js';
import { visible } from './routes.js';

export const INCIDENT_CAUSES_PATH = '/api/incident-causes';
export const INCIDENT_CAUSE_PATH = '/api/incidents/:id/cause';
const limitBody = limitJsonBody(8 * 1024);
const DEFAULT_LABELS = new Map(DEFAULT_INCIDENT_CAUSES.map((c) => [c.id, c.label]));

const invalid = (problems: { field: string; message: string }[]) =>
  new ApiError('INVALID_BODY', `The body is invalid: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`, { problems });

async function emailOf(pool: pg.Pool, caller: Caller): Promise<string> {
  const { rows: [who] } = await pool.query<{ email: string }>('select email from users where id = $1', [caller.userId]);
  return who?.email ?? `user ${caller.userId}`;
}

export function incidentCauseRoutes({ pool, auth, now }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv>; now: () => number }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  app.get(INCIDENT_CAUSES_PATH, auth, async (c) => {
    acceptOnly(c.req.queries(), []);
    const list = await causeList(pool, c.get('caller').org);
    return c.json({ data: list.causes.map((id) => ({ id, label: DEFAULT_LABELS.get(id) ?? null })), configured: list.configured, updatedBy: list.updatedBy, updatedAt: list.updatedAt });
  });

  app.put(INCIDENT_CAUSES_PATH, auth, requireAdmin, limitBody, async (c) => {
    const body = await jsonObjectBody(c);
    const extra = Object.keys(body).filter((k) => k !== 'causes');
    const problems = [...extra.map((k) => `${k} is not a field (causes)`), ...causeListProblems(body.causes)];
    if (problems.length) throw new ApiError('INVALID_BODY', `The body is invalid: ${problems.join('; ')}`, { problems });
    const caller = c.get('caller');
    await pool.query(
      `insert into incident_cause_lists ("OrganizationID", causes, updated_by, updated_at) values ($1, $2, $3, $4)
       on conflict ("OrganizationID") do update set causes = excluded.causes, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
      [caller.org, body.causes, await emailOf(pool, caller), new Date(now())]);
    const list = await causeList(pool, caller.org);
    return c.json({ data: list.causes.map((id) => ({ id, label: DEFAULT_LABELS.get(id) ?? null })), configured: true, updatedBy: list.updatedBy, updatedAt: list.updatedAt });
  });

  app.post(INCIDENT_CAUSE_PATH, auth, limitBody, async (c) => {
    acceptOnly(c.req.queries(), []);
    const id = c.req.param('id');
    const notFound = () => new ApiError('NOT_FOUND', 'No such incident.', { id: id.slice(0, 20) });
    if (!/^\d{1,15}$/.test(id)) throw notFound();
    const caller = c.get('caller');
    const body = await jsonObjectBody(c);
    const read = readCauseRecord(body, (await causeList(pool, caller.org)).causes);
    if ('problems' in read) throw invalid(read.problems);
    if (read.record.note !== null && !isStorableText(read.record.note)) throw invalid([{ field: 'note', message: 'holds a character that cannot be stored' }]);
    const p = new SqlParams();
    const by = await emailOf(pool, caller);
    // Insert only for an incident the caller may read: one statement, so the check and the write see the same incident.
    const { rows: [stored] } = await pool.query<{ id: string }>(
      `insert into incident_cause_changes (incident_id, cause, major_event, note, set_by, set_by_user, set_at)
       select i.id, ${p.add(read.record.cause)}::text, ${p.add(read.record.majorEvent)}::boolean, ${p.add(read.record.note)}::text,
              ${p.add(by)}::text, ${p.add(caller.userId)}::bigint, ${p.add(new Date(now()))}::timestamptz
         from incidents i where i.id = ${p.add(id)}::bigint and ${visible(caller, p)}
       returning id`, p.values);
    if (!stored) throw notFound();
    const history = await causeHistory(pool, id);
    return c.json({ id: Number(id), ...history[0]!, history });
  });
  return app;
}
