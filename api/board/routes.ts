// The board's API (issue 32 point 1, docs/decisions.md#the-board): GET /api/board, polled with ETags; the
// acknowledgement of a whole feeder; shelving and unshelving of maintenance alarm points. Every route takes
// the one `auth` of app.ts, so reach and the fault mask apply as everywhere else.
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { ALARM_CLASSES, type AlarmClass } from '../../domain/alarm-kinds.js';
import { alarmClassOf, DEFAULT_CHATTER_SHELVE_MAX_MINUTES, shelveMaxMinutes, shelveMinutesProblem } from '../../domain/alarm-states.js';
import { withTransaction } from '../../db/transaction.js';
import type { AuthEnv, Caller } from '../auth/caller.js';
import { matchesEtag } from '../device-records/fleet-answer.js';
import { reachCondition } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';
import { acceptOnly, ApiError, badParameter } from '../errors.js';
import { callerEmail, jsonObjectBody, limitBody, wholeNumberId } from '../request.js';
import { readBoard } from './read.js';

export const BOARD_PATH = '/api/board';
export const FEEDER_ACKNOWLEDGE_PATH = '/api/board/feeders/:powerLineId/acknowledge';
export const SHELVE_PATH = '/api/alarms/:id/shelve';
export const UNSHELVE_PATH = '/api/alarms/:id/unshelve';
const BODY_LIMIT = 4096;

function classOf(text: string | undefined, field: string): AlarmClass | null {
  if (text === undefined || text === '') return null;
  if (!(ALARM_CLASSES as readonly string[]).includes(text)) throw badParameter(field, `must be one of ${ALARM_CLASSES.join(', ')}`);
  return text as AlarmClass;
}

/** The alarm `id` in the caller's reach: its device, kind, class and episodes, or a 404. */
async function alarmInReach(db: Pick<pg.ClientBase, 'query'>, caller: Caller, id: number) {
  const p = new SqlParams();
  const { rows: [a] } = await db.query<{ IMEINumber: string; kind: string; class: AlarmClass | null; chatter_count: number }>(
    `select a."IMEINumber", a.kind, a.class, a.chatter_count from alarms a join device_information d on d."IMEINumber" = a."IMEINumber"
      where a.id = ${p.add(id)}::bigint and ${reachCondition(caller, p, 'd', 'a.raised_at')}`, p.values);
  if (!a) throw new ApiError('NOT_FOUND', 'No such alarm.', { id });
  return a;
}

/** `chatterShelveMaxMinutes`: Settings.alarms.chatterShelveMaxMinutes (ALARM_CHATTER_SHELVE_MAX_MINUTES). */
export function boardRoutes({ pool, auth, now, chatterShelveMaxMinutes = DEFAULT_CHATTER_SHELVE_MAX_MINUTES }: {
  pool: pg.Pool; auth: MiddlewareHandler<AuthEnv>; now: () => number; chatterShelveMaxMinutes?: number;
}): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  // Polled every few seconds by every open board: an unchanged board is a 304 of a few bytes.
  app.get(BOARD_PATH, auth, async (c) => {
    acceptOnly(c.req.queries(), ['class']);
    const body = JSON.stringify(await readBoard(pool, c.get('caller'), now(), classOf(c.req.query('class'), 'class'), chatterShelveMaxMinutes));
    const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
    c.header('etag', etag);
    c.header('cache-control', 'no-cache');
    if (matchesEtag(c.req.header('if-none-match'), etag)) return c.body(null, 304);
    return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8' });
  });

  // Acknowledges every unacknowledged, unshelved alarm of a feeder in the caller's reach (of one class with
  // {"class": ...}: the class the board shows), incident alarms included.
  app.post(FEEDER_ACKNOWLEDGE_PATH, auth, limitBody(BODY_LIMIT), async (c) => {
    const caller = c.get('caller');
    const line = c.req.param('powerLineId');
    if (line.length === 0 || line.length > 100) throw badParameter('powerLineId', 'must be a power line id (1 to 100 characters).');
    const body = await jsonObjectBody(c, { optional: true });
    for (const key of Object.keys(body)) if (key !== 'class') throw new ApiError('INVALID_BODY', `The body field "${key}" is not accepted; only "class".`, { field: key });
    // An empty class is not "every class" in a body (it is in the board's query): acknowledging more than asked is the worse mistake.
    if (body.class !== undefined && (typeof body.class !== 'string' || body.class === '')) throw new ApiError('INVALID_BODY', 'The body field "class" must be a class name (a string) when given.', { field: 'class' });
    const cls = body.class === undefined ? null : classOf(body.class, 'class');
    const by = await callerEmail(pool, caller);
    const at = new Date(now());
    const ids = await withTransaction(pool, async (client) => {
      const p = new SqlParams();
      const { rows } = await client.query<{ id: string; kind: string; class: AlarmClass | null }>(
        `select a.id, a.kind, a.class from alarms a join device_information d on d."IMEINumber" = a."IMEINumber"
          where a."OrganizationID" = ${p.add(caller.org)}::text and a."PowerLineID" = ${p.add(line)}::text and a.acknowledged_at is null
            and ${reachCondition(caller, p, 'd', 'a.raised_at')}
            and not exists (select 1 from alarm_shelves s where s."IMEINumber" = a."IMEINumber" and s.kind = a.kind and s."OrganizationID" = a."OrganizationID" and s.until > ${p.add(at)}::timestamptz)
          for update of a`, p.values);
      const chosen = rows.filter((r) => cls === null || alarmClassOf(r.kind, r.class) === cls).map((r) => Number(r.id));
      // Never clears: acknowledged and cleared are separate states (domain/alarm-states.ts).
      await client.query('update alarms set acknowledged_at = $2, acknowledged_by = $3 where id = any($1::bigint[]) and acknowledged_at is null', [chosen, at, by]);
      return chosen.sort((a, b) => a - b);
    });
    return c.json({ powerLineId: line, acknowledged: ids, acknowledgedAt: at.toISOString() });
  });

  // Shelves the alarm's point (its device and kind) for `minutes`; maintenance alarms and chattering ones only. An
  // operations alarm shelvable only because it chatters is shelved for at most ALARM_CHATTER_SHELVE_MAX_MINUTES, and
  // the shelving names its row: a new row of the point (a new fault) lifts it (alarms/raise.ts).
  app.post(SHELVE_PATH, auth, limitBody(BODY_LIMIT), async (c) => {
    const caller = c.get('caller');
    const id = wholeNumberId(c.req.param('id'), 'an alarm');
    const body = await jsonObjectBody(c, { optional: true });
    const problem = shelveMinutesProblem(body.minutes);
    if (problem) throw new ApiError('INVALID_BODY', `The body's "minutes" ${problem}.`, { field: 'minutes' });
    const a = await alarmInReach(pool, caller, id);
    const cls = alarmClassOf(a.kind, a.class);
    const max = shelveMaxMinutes(cls, a.chatter_count, chatterShelveMaxMinutes);
    if (max === null) throw new ApiError('CONFLICT', `Only maintenance alarms and chattering alarms may be shelved; this one is of class ${cls} and not chattering.`, { id, class: cls });
    const capped = shelveMinutesProblem(body.minutes, max);
    if (capped) throw new ApiError('INVALID_BODY', `The body's "minutes" ${capped}: a chattering ${cls} alarm is shelved for at most ${max} minutes.`, { field: 'minutes', max });
    const at = now();
    const until = new Date(at + (body.minutes as number) * 60_000);
    await pool.query(
      `insert into alarm_shelves ("OrganizationID", "IMEINumber", kind, until, shelved_by, shelved_at, chatter_alarm_id) values ($1, $2, $3, $4, $5, $6, $7)
       on conflict ("IMEINumber", kind) do update set "OrganizationID" = excluded."OrganizationID", until = excluded.until, shelved_by = excluded.shelved_by,
         shelved_at = excluded.shelved_at, chatter_alarm_id = excluded.chatter_alarm_id`,
      [caller.org, a.IMEINumber, a.kind, until, await callerEmail(pool, caller), new Date(at), cls === 'maintenance' ? null : id]);
    return c.json({ id, IMEINumber: a.IMEINumber, kind: a.kind, until: until.toISOString() });
  });

  app.post(UNSHELVE_PATH, auth, async (c) => {
    const caller = c.get('caller');
    const id = wholeNumberId(c.req.param('id'), 'an alarm');
    const a = await alarmInReach(pool, caller, id);
    const { rowCount } = await pool.query('delete from alarm_shelves where "OrganizationID" = $1 and "IMEINumber" = $2 and kind = $3', [caller.org, a.IMEINumber, a.kind]);
    return c.json({ id, IMEINumber: a.IMEINumber, kind: a.kind, unshelved: (rowCount ?? 0) > 0 });
  });
  return app;
}
