// The alarm API (issue 20): alarms of the caller's reach and their actions (actions.ts: every user), and the
// organisation's alarm rules, recipients and given-up messages (admins of that organisation only). The SQL is store.ts. Rule and
// recipient bodies are read by the import's own readers (reference-data/alarms.ts), so the API and
// `faultline import` accept the same rows; the organisation is always the caller's.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import type { WebhookAllowance } from '../../config/settings.js';
import { ALARM_KINDS } from '../../domain/alarm-kinds.js';
import { withTransaction } from '../../db/transaction.js';
import { listAlarmDeliveries, retryAlarmDelivery } from '../../alarms/outbox.js';
import { readRecipients, readRules } from '../../alarms/store.js';
import { checkAlarmReferences, readAlarmRecipient, readAlarmRule, upsertAlarmRecipients, upsertAlarmRules } from '../../reference-data/alarms.js';
import { FieldReader, ProblemList } from '../../reference-data/field-reader.js';
import type { Keyring } from '../../secrets/keyring.js';
import { requireAdmin } from '../auth/require-auth.js';
import type { AuthEnv, Caller } from '../auth/caller.js';
import { acceptOnly, ApiError, badParameter } from '../errors.js';
import { jsonObjectBody, textId, wholeNumberId } from '../request.js';
import { getRoute } from '../read-route.js';
import { writeRoute, type WriteEndpoint } from '../write-endpoint.js';
import { alarmActionRoutes } from './actions.js';
import { ALARM_DELIVERIES_PATH, ALARM_KINDS_PATH, ALARM_RECIPIENTS_PATH, ALARM_RULES_PATH, ALARMS_PATH, DELETE_RECIPIENT, DELETE_RULE, GET_ALARM_KINDS, GET_ALARMS, GET_DELIVERIES, GET_RECIPIENTS, GET_RULES, PUT_RECIPIENT, PUT_RULE, RETRY_DELIVERY } from './endpoints.js';
import { ALARM_STATES, deleteOwned, listAlarms, ownedElsewhere, rulesNamingRecipient, type AlarmState } from './store.js';

export { ALARMS_PATH, ALARM_KINDS_PATH, ALARM_RULES_PATH, ALARM_RECIPIENTS_PATH, ALARM_DELIVERIES_PATH };
export { ALARM_STATES };

export interface AlarmRouteOptions {
  pool: pg.Pool;
  auth: MiddlewareHandler<AuthEnv>;
  /** Seals webhook secrets; null: a recipient with a secret is refused (409) until keys are configured. */
  keyring: Keyring | null;
  webhookAllow: readonly WebhookAllowance[];
  now: () => number;
  /** Settings.alarms.chatterShelveMaxMinutes (ALARM_CHATTER_SHELVE_MAX_MINUTES): the shelving of chattering alarms. */
  chatterShelveMaxMinutes?: number;
}

function limitOf(text: string | undefined): number {
  const t = text ?? '100';
  if (!/^\d{1,3}$/.test(t) || Number(t) < 1 || Number(t) > 500) throw badParameter('limit', 'must be a whole number from 1 to 500');
  return Number(t);
}


/** Problems of a body as one 400 naming every field. */
function invalid(list: ProblemList): ApiError {
  const problems = list.problems.map((p) => ({ field: p.path.replace(/^body\.?/, '') || 'body', message: p.message }));
  return new ApiError('INVALID_BODY', `The body is invalid: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`, { problems });
}

/** The body with the id of the path and the caller's organisation (a body naming another organisation is refused). */
function withScope(body: Record<string, unknown>, id: string, caller: Caller): Record<string, unknown> {
  if (body.id !== undefined && body.id !== id) throw new ApiError('INVALID_BODY', 'The body\'s "id" differs from the path.', { field: 'id' });
  if (body.OrganizationID !== undefined && body.OrganizationID !== caller.org) throw new ApiError('FORBIDDEN', 'Rules and recipients belong to the caller\'s own organisation.');
  return { ...body, id, OrganizationID: caller.org };
}

const presentRecipient = (r: Awaited<ReturnType<typeof readRecipients>>[number]) => ({
  id: r.id, name: r.name, channel: r.channel, address: r.address, capPerDay: r.capPerDay, fleetDigest: r.fleetDigest, hasSecret: r.secret !== null,
});
const presentRule = (r: Awaited<ReturnType<typeof readRules>>[number]) => ({
  id: r.id, name: r.name, class: r.class, what: r.kinds, where: { powerLines: r.powerLines, groups: r.groups, devices: r.devices },
  who: r.recipients, when: r.hours ?? 'always', escalation: r.escalation, enabled: r.enabled,
});

export function alarmRoutes({ pool, auth, keyring, webhookAllow, now, chatterShelveMaxMinutes }: AlarmRouteOptions): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  getRoute(app, GET_ALARM_KINDS, [auth], (c) => {
    acceptOnly(c.req.queries(), []);
    return c.json({ data: ALARM_KINDS.map((k) => ({ id: k.id, label: k.label, source: k.source })) });
  });

  getRoute(app, GET_ALARMS, [auth], async (c) => {
    acceptOnly(c.req.queries(), ['state', 'limit']);
    const state = (c.req.query('state') ?? 'active') as AlarmState;
    if (!ALARM_STATES.includes(state)) throw badParameter('state', `must be one of ${ALARM_STATES.join(', ')}`);
    const rows = await listAlarms(pool, c.get('caller'), state, limitOf(c.req.query('limit')));
    return c.json({ data: rows.map((r) => ({
      ...r, raised_at: (r.raised_at as Date).toISOString(), acknowledged_at: (r.acknowledged_at as Date | null)?.toISOString() ?? null,
      cleared_at: (r.cleared_at as Date | null)?.toISOString() ?? null,
      state: r.cleared_at ? 'cleared' : r.acknowledged_at ? 'acknowledged' : 'active',
    })) });
  });

  app.route('/', alarmActionRoutes({ pool, auth, now, ...(chatterShelveMaxMinutes !== undefined ? { chatterShelveMaxMinutes } : {}) }));
  organisationRoutes(app, { pool, auth, keyring, webhookAllow });
  return app;
}

/** The organisation's alarm rules, recipients and given-up messages: its admins only. */
function organisationRoutes(app: Hono<AuthEnv>, { pool, auth, keyring, webhookAllow }: Omit<AlarmRouteOptions, 'now' | 'chatterShelveMaxMinutes'>): void {
  getRoute(app, GET_RULES, [auth, requireAdmin], async (c) => {
    acceptOnly(c.req.queries(), []);
    return c.json({ data: (await readRules(pool, c.get('caller').org)).map(presentRule) });
  });
  getRoute(app, GET_RECIPIENTS, [auth, requireAdmin], async (c) => {
    acceptOnly(c.req.queries(), []);
    return c.json({ data: (await readRecipients(pool, c.get('caller').org)).map(presentRecipient) });
  });

  // Writes: the id may exist only in the caller's organisation (another organisation's id is a 409, not a takeover).
  writeRoute(app, PUT_RECIPIENT, [auth, requireAdmin], async (c) => {
    const caller = c.get('caller');
    const body = withScope(await jsonObjectBody(c), c.req.param('id'), caller);
    const list = new ProblemList();
    const row = readAlarmRecipient(new FieldReader(body, 'body', list), { webhookAllow });
    if (!row || list.problems.length) throw invalid(list);
    if (typeof row.secret === 'string' && row.secret !== 'keep' && !keyring) throw new ApiError('CONFLICT', 'No secret key is configured on this server (FAULTLINE_SECRET_KEYS or FAULTLINE_SECRET_KEY_FILE), so a secret cannot be stored.');
    await withTransaction(pool, async (client) => {
      if (await ownedElsewhere(client, 'alarm_recipients', row.id, caller.org)) throw new ApiError('CONFLICT', 'This id is taken; choose another.', { id: row.id });
      await upsertAlarmRecipients(client, [row], keyring ?? undefined);
    });
    const [stored] = await readRecipients(pool, caller.org, row.id);
    return c.json(presentRecipient(stored!));
  });

  writeRoute(app, PUT_RULE, [auth, requireAdmin], async (c) => {
    const caller = c.get('caller');
    const body = withScope(await jsonObjectBody(c), c.req.param('id'), caller);
    const list = new ProblemList();
    const row = readAlarmRule(new FieldReader(body, 'body', list));
    if (!row || list.problems.length) throw invalid(list);
    await withTransaction(pool, async (client) => {
      if (await ownedElsewhere(client, 'alarm_rules', row.id, caller.org)) throw new ApiError('CONFLICT', 'This id is taken; choose another.', { id: row.id });
      const problems = await checkAlarmReferences(client, [], [row], () => 'body');
      if (problems.length) {
        const l = new ProblemList();
        for (const p of problems) l.add(p.path, p.message);
        throw invalid(l);
      }
      await upsertAlarmRules(client, [row]);
    });
    const [stored] = await readRules(pool, caller.org, row.id);
    return c.json(presentRule(stored!));
  });

  const remove = (entry: WriteEndpoint<typeof DELETE_RULE.path | typeof DELETE_RECIPIENT.path>, table: 'alarm_rules' | 'alarm_recipients', what: string) =>
    writeRoute(app, entry, [auth, requireAdmin], async (c) => {
      const caller = c.get('caller');
      const id = textId(c.req.param('id'), `an ${what}`);
      if (table === 'alarm_recipients') {
        const rules = await rulesNamingRecipient(pool, caller.org, id);
        if (rules.length) throw new ApiError('CONFLICT', `Rules still name this recipient: ${rules.join(', ')}.`, { rules });
      }
      if (!(await deleteOwned(pool, table, id, caller.org))) throw new ApiError('NOT_FOUND', `No such ${what}.`, { id });
      return c.body(null, 204);
    });
  remove(DELETE_RULE, 'alarm_rules', 'alarm rule');
  remove(DELETE_RECIPIENT, 'alarm_recipients', 'alarm recipient');

  getRoute(app, GET_DELIVERIES, [auth, requireAdmin], async (c) => {
    acceptOnly(c.req.queries(), ['state', 'limit']);
    const state = c.req.query('state') ?? 'dead';
    if (!['pending', 'dead', 'delivered', 'all'].includes(state)) throw badParameter('state', 'must be one of pending, dead, delivered, all');
    const rows = await listAlarmDeliveries(pool, { state: state as 'dead', limit: limitOf(c.req.query('limit')), org: c.get('caller').org });
    return c.json({ data: rows.map((r) => ({
      id: r.id, recipient: r.recipient_id, alarmId: r.alarm_id, kind: r.kind, attempts: r.attempts, lastError: r.last_error, suppressed: r.suppressed,
      createdAt: r.created_at.toISOString(), deliveredAt: r.delivered_at?.toISOString() ?? null, deadAt: r.dead_at?.toISOString() ?? null,
    })) });
  });
  writeRoute(app, RETRY_DELIVERY, [auth, requireAdmin], async (c) => {
    const id = wholeNumberId(c.req.param('id'), 'an alarm message');
    if (!(await retryAlarmDelivery(pool, id, c.get('caller').org))) throw new ApiError('NOT_FOUND', 'No undelivered alarm message with this id.', { id });
    return c.json({ id, due: 'now' });
  });
}
