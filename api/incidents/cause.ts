// The cause of an incident (issue 43 item 3; docs/reliability-export.md#causes): an operator records one id of
// the organisation's list with POST /api/incidents/:id/cause, for an incident in the caller's reach (the
// same reach as reading it, like acknowledging an alarm); every record is kept (who, when), the newest is the
// cause, up to MAX_CAUSE_RECORDS per incident (then a 409: the history is the audit, never pruned). The
// history in pages, newest first: GET /api/incidents/:id/cause-history. The list: GET /api/incident-causes
// (everyone), PUT (the organisation's admins); without one stored, the default list (domain/incident-causes.ts).
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { CAUSE_HISTORY_PAGE, causeListProblems, DEFAULT_INCIDENT_CAUSES, MAX_CAUSE_RECORDS, readCauseRecord } from '../../domain/incident-causes.js';
import { withTransaction } from '../../db/transaction.js';
import type { AuthEnv } from '../auth/caller.js';
import { requireAdmin } from '../auth/require-auth.js';
import { acceptOnly, ApiError } from '../errors.js';
import { callerEmail, isStorableText, jsonObjectBody } from '../request.js';
import { getRoute } from '../read-route.js';
import { writeRoute } from '../write-endpoint.js';
import { GET_CAUSE_HISTORY, GET_CAUSES, INCIDENT_CAUSE_HISTORY_PATH, INCIDENT_CAUSE_PATH, INCIDENT_CAUSES_PATH, PUT_CAUSES, RECORD_CAUSE } from './cause-endpoints.js';
import { causeHistory, causeList } from './cause-store.js';
import { integer } from './routes.js';
import { causeRecordCount, incidentSeen, recordCause, saveCauseList } from './store.js';

export { INCIDENT_CAUSES_PATH, INCIDENT_CAUSE_PATH, INCIDENT_CAUSE_HISTORY_PATH };
const DEFAULT_LABELS = new Map(DEFAULT_INCIDENT_CAUSES.map((c) => [c.id, c.label]));

const invalid = (problems: { field: string; message: string }[]) =>
  new ApiError('INVALID_BODY', `The body is invalid: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`, { problems });

export function incidentCauseRoutes({ pool, auth, now }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv>; now: () => number }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  getRoute(app, GET_CAUSES, [auth], async (c) => {
    acceptOnly(c.req.queries(), []);
    const list = await causeList(pool, c.get('caller').org);
    return c.json({ data: list.causes.map((id) => ({ id, label: DEFAULT_LABELS.get(id) ?? null })), configured: list.configured, updatedBy: list.updatedBy, updatedAt: list.updatedAt });
  });

  writeRoute(app, PUT_CAUSES, [auth, requireAdmin], async (c) => {
    const body = await jsonObjectBody(c);
    const extra = Object.keys(body).filter((k) => k !== 'causes');
    const problems = [...extra.map((k) => `${k} is not a field (causes)`), ...causeListProblems(body.causes)];
    if (problems.length) throw new ApiError('INVALID_BODY', `The body is invalid: ${problems.join('; ')}`, { problems });
    const caller = c.get('caller');
    await saveCauseList(pool, caller.org, body.causes as string[], await callerEmail(pool, caller), new Date(now()));
    const list = await causeList(pool, caller.org);
    return c.json({ data: list.causes.map((id) => ({ id, label: DEFAULT_LABELS.get(id) ?? null })), configured: true, updatedBy: list.updatedBy, updatedAt: list.updatedAt });
  });

  writeRoute(app, RECORD_CAUSE, [auth], async (c) => {
    acceptOnly(c.req.queries(), []);
    const id = c.req.param('id');
    const notFound = () => new ApiError('NOT_FOUND', 'No such incident.', { id: id.slice(0, 20) });
    if (!/^\d{1,15}$/.test(id)) throw notFound();
    const caller = c.get('caller');
    const body = await jsonObjectBody(c);
    const read = readCauseRecord(body, (await causeList(pool, caller.org)).causes);
    if ('problems' in read) throw invalid(read.problems);
    if (read.record.note !== null && !isStorableText(read.record.note)) throw invalid([{ field: 'note', message: 'holds a character that cannot be stored' }]);
    const by = await callerEmail(pool, caller);
    // The incident row is locked while its records are counted and the new one written: two operators at the
    // cap cannot both pass the count.
    const outcome = await withTransaction(pool, async (db) => {
      if (!(await incidentSeen(db, caller, id, { lock: true }))) return 'not found' as const;
      if ((await causeRecordCount(db, id)) >= MAX_CAUSE_RECORDS) return 'full' as const;
      await recordCause(db, id, { ...read.record, by, userId: caller.userId, at: new Date(now()) });
      return 'recorded' as const;
    });
    if (outcome === 'not found') throw notFound();
    if (outcome === 'full') {
      throw new ApiError('CONFLICT', `The incident has ${MAX_CAUSE_RECORDS} cause records, the most kept per incident; its history is kept whole, so no more can be recorded.`, { id: Number(id), maxRecords: MAX_CAUSE_RECORDS });
    }
    const history = await causeHistory(pool, id);
    return c.json({ ...history.data[0]!, id: Number(id), history: history.data, historyNext: history.next });
  });

  getRoute(app, GET_CAUSE_HISTORY, [auth], async (c) => {
    acceptOnly(c.req.queries(), ['limit', 'before'], { repeatable: false });
    const id = c.req.param('id');
    const notFound = () => new ApiError('NOT_FOUND', 'No such incident.', { id: id.slice(0, 20) });
    if (!/^\d{1,15}$/.test(id)) throw notFound();
    const limit = integer(c.req.query('limit'), 'limit', CAUSE_HISTORY_PAGE.default, 1, CAUSE_HISTORY_PAGE.max);
    const before = c.req.query('before') === undefined ? null : integer(c.req.query('before'), 'before', 0, 1, 999_999_999);
    if (!(await incidentSeen(pool, c.get('caller'), id))) throw notFound();
    const page = await causeHistory(pool, id, { limit, before });
    return c.json({ id: Number(id), data: page.data, limit, next: page.next });
  });
  return app;
}
