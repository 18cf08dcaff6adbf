// The alarm actions, in one router (docs/decisions.md#a-request-kit-and-write-endpoints): acknowledging an alarm,
// acknowledging a whole feeder from the board, shelving and unshelving an alarm point. Every action takes the one
// `auth` of app.ts, acts only on alarms in the caller's reach, and records who acted by e-mail. Their SQL is
// store.ts; the rules they apply (classes, shelving limits) are domain/alarm-states.ts.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { ALARM_CLASSES, type AlarmClass } from '../../domain/alarm-kinds.js';
import { alarmClassOf, DEFAULT_CHATTER_SHELVE_MAX_MINUTES, shelveMaxMinutes, shelveMinutesProblem } from '../../domain/alarm-states.js';
import type { AuthEnv, Caller } from '../auth/caller.js';
import { ApiError, badParameter } from '../errors.js';
import { callerEmail, jsonObjectBody, textId, wholeNumberId } from '../request.js';
import { writeRoute } from '../write-endpoint.js';
import { ACKNOWLEDGE, FEEDER_ACKNOWLEDGE, SHELVE, UNSHELVE } from './endpoints.js';
import { acknowledgeAlarm, acknowledgeFeeder, alarmInReach, shelveAlarmPoint, unshelveAlarmPoint, type ReachedAlarm } from './store.js';


/** A class named in a query or body, or null when none is. */
export function classOf(text: string | undefined, field: string): AlarmClass | null {
  if (text === undefined || text === '') return null;
  if (!(ALARM_CLASSES as readonly string[]).includes(text)) throw badParameter(field, `must be one of ${ALARM_CLASSES.join(', ')}`);
  return text as AlarmClass;
}

async function reached(pool: pg.Pool, caller: Caller, id: number): Promise<ReachedAlarm> {
  const a = await alarmInReach(pool, caller, id);
  if (!a) throw new ApiError('NOT_FOUND', 'No such alarm.', { id });
  return a;
}

export interface AlarmActionOptions {
  pool: pg.Pool;
  auth: MiddlewareHandler<AuthEnv>;
  now: () => number;
  /** Settings.alarms.chatterShelveMaxMinutes (ALARM_CHATTER_SHELVE_MAX_MINUTES). */
  chatterShelveMaxMinutes?: number;
}

export function alarmActionRoutes({ pool, auth, now, chatterShelveMaxMinutes = DEFAULT_CHATTER_SHELVE_MAX_MINUTES }: AlarmActionOptions): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  writeRoute(app, ACKNOWLEDGE, [auth], async (c) => {
    const caller = c.get('caller');
    const id = wholeNumberId(c.req.param('id'), 'an alarm');
    const updated = await acknowledgeAlarm(pool, caller, id, await callerEmail(pool, caller), new Date(now()));
    if (!updated) throw new ApiError('NOT_FOUND', 'No such alarm.', { id });
    return c.json({ id, acknowledged_at: updated.acknowledged_at.toISOString() });
  });

  // Acknowledges every unacknowledged, unshelved alarm of a feeder in the caller's reach (of one class with
  // {"class": ...}: the class the board shows), incident alarms included.
  writeRoute(app, FEEDER_ACKNOWLEDGE, [auth], async (c) => {
    const caller = c.get('caller');
    const line = textId(c.req.param('powerLineId'), 'a power line', 'powerLineId');
    const body = await jsonObjectBody(c, { optional: true });
    for (const key of Object.keys(body)) if (key !== 'class') throw new ApiError('INVALID_BODY', `The body field "${key}" is not accepted; only "class".`, { field: key });
    // An empty class is not "every class" in a body (it is in the board's query): acknowledging more than asked is the worse mistake.
    if (body.class !== undefined && (typeof body.class !== 'string' || body.class === '')) throw new ApiError('INVALID_BODY', 'The body field "class" must be a class name (a string) when given.', { field: 'class' });
    const cls = body.class === undefined ? null : classOf(body.class, 'class');
    const at = new Date(now());
    const ids = await acknowledgeFeeder(pool, caller, line, cls, await callerEmail(pool, caller), at);
    return c.json({ powerLineId: line, acknowledged: ids, acknowledgedAt: at.toISOString() });
  });

  // Shelves the alarm's point (its device and kind) for `minutes`; maintenance alarms and chattering ones only. An
  // operations alarm shelvable only because it chatters is shelved for at most ALARM_CHATTER_SHELVE_MAX_MINUTES, and
  // the shelving names its row: a new row of the point (a new fault) lifts it (alarms/raise.ts).
  writeRoute(app, SHELVE, [auth], async (c) => {
    const caller = c.get('caller');
    const id = wholeNumberId(c.req.param('id'), 'an alarm');
    const body = await jsonObjectBody(c, { optional: true });
    const problem = shelveMinutesProblem(body.minutes);
    if (problem) throw new ApiError('INVALID_BODY', `The body's "minutes" ${problem}.`, { field: 'minutes' });
    const a = await reached(pool, caller, id);
    const cls = alarmClassOf(a.kind, a.class);
    const max = shelveMaxMinutes(cls, a.chatter_count, chatterShelveMaxMinutes);
    if (max === null) throw new ApiError('CONFLICT', `Only maintenance alarms and chattering alarms may be shelved; this one is of class ${cls} and not chattering.`, { id, class: cls });
    const capped = shelveMinutesProblem(body.minutes, max);
    if (capped) throw new ApiError('INVALID_BODY', `The body's "minutes" ${capped}: a chattering ${cls} alarm is shelved for at most ${max} minutes.`, { field: 'minutes', max });
    const at = now();
    const until = new Date(at + (body.minutes as number) * 60_000);
    await shelveAlarmPoint(pool, { org: caller.org, imei: a.IMEINumber, kind: a.kind, until, by: await callerEmail(pool, caller), at: new Date(at), chatterAlarmId: cls === 'maintenance' ? null : id });
    return c.json({ id, IMEINumber: a.IMEINumber, kind: a.kind, until: until.toISOString() });
  });

  writeRoute(app, UNSHELVE, [auth], async (c) => {
    const caller = c.get('caller');
    const id = wholeNumberId(c.req.param('id'), 'an alarm');
    const a = await reached(pool, caller, id);
    const unshelved = await unshelveAlarmPoint(pool, caller.org, a.IMEINumber, a.kind);
    return c.json({ id, IMEINumber: a.IMEINumber, kind: a.kind, unshelved });
  });
  return app;
}
