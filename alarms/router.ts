// The alarm router (issue 20 points 1, 4, 5): turns each raise and end of an alarm into alarm outbox rows for
// the recipients of the organisation's matching rules, within their hours and caps; during a storm, digests
// instead; escalates unacknowledged operations alarms along a roster. One router at a time across every
// process (a transaction-scoped advisory lock; the others skip the round), and each alarm_changes row is
// marked routed in the same transaction as the rows it made, so every change is routed exactly once.
// What to send to whom is decided by the pure plan (domain/alarm-routing-plan.ts); this file reads its facts
// and writes its rows.
import type pg from 'pg';
import type { AlarmSettings } from '../config/settings.js';
import { failpoint } from '../config/failpoints.js';
import { FaultlineError } from '../errors/base.js';
import { withTransaction } from '../db/transaction.js';
import { CHATTERING_KINDS, CLEAR_HOLD_MS } from '../domain/alarm-chatter.js';
import {
  digestStep, planClear, planDigest, planEscalations, planRaise, routingRules, stormsStarting,
  type AlarmFact, type PlannedMessage, type RoutingOrg, type StormFact,
} from '../domain/alarm-routing-plan.js';
import { underCap, type StormLimits } from '../domain/alarm-rules.js';
import { queueFleetDigests, type FleetSummaryOf } from './fleet-digest.js';
import { readRecipients, readRules, type StoredRecipient } from './store.js';

const ROUTER_LOCK = 0x616c726d; // "alrm"

interface ChangeRow extends AlarmFact { change_id: number; change: 'raised' | 'cleared' }

const ALARM_COLUMNS = `a.id, a."OrganizationID", a."IMEINumber", a.kind, a."PowerLineID", a.class, a.detail, a.raised_at, a.cleared_at,
  o.timezone, d."Real_Name",
  coalesce(array(select l."GroupID" from group_device_links l where l."DeviceID" = d."DeviceID"), '{}') as groups`;
const ALARM_JOINS = `join organizations o on o."OrganizationID" = a."OrganizationID"
  left join device_information d on d."IMEINumber" = a."IMEINumber"`;

export interface RouteResult { routed: number; messages: number; suppressed: number; escalations: number; digests: number; fleetDigests: number; skipped: boolean }

type Org = RoutingOrg<StoredRecipient>;

/** One routing round's reads and writes, inside the router's transaction. */
interface Round {
  client: pg.PoolClient;
  now: Date;
  nowMs: number;
  portalUrl: string | null;
  storm: StormLimits;
  result: RouteResult;
  org(id: string): Promise<Org>;
  /** Stores a planned message: 'sent', 'suppressed' (over the cap) or 'duplicate' (already stored). */
  store(m: PlannedMessage<StoredRecipient>): Promise<'sent' | 'suppressed' | 'duplicate'>;
}

/** A change of the round was taken back meanwhile (a chattering row reopened): the round is undone and tried again. */
class ChangeTakenBack extends FaultlineError<'CHANGE_TAKEN_BACK'> {
  constructor(message: string) { super('CHANGE_TAKEN_BACK', message, { retriable: true }); }
}

/** fleetSummary: the fleet digest's counts (fleet-digest.ts); without it no fleet digest is sent. */
export async function routeAlarms(pool: pg.Pool, settings: AlarmSettings, nowMs: number, fleetSummary?: FleetSummaryOf): Promise<RouteResult> {
  try {
    return await routeRound(pool, settings, nowMs, fleetSummary);
  } catch (err) {
    if (!(err instanceof ChangeTakenBack)) throw err;
    return routeRound(pool, settings, nowMs, fleetSummary);
  }
}

async function routeRound(pool: pg.Pool, settings: AlarmSettings, nowMs: number, fleetSummary: FleetSummaryOf | undefined): Promise<RouteResult> {
  const result: RouteResult = { routed: 0, messages: 0, suppressed: 0, escalations: 0, digests: 0, fleetDigests: 0, skipped: false };
  return withTransaction(pool, async (client) => {
    const { rows: [lock] } = await client.query<{ ok: boolean }>('select pg_try_advisory_xact_lock($1) as ok', [ROUTER_LOCK]);
    if (!lock?.ok) { result.skipped = true; return result; } // another process routes; its transaction ends with nothing done
    const round = await openRound(client, settings, nowMs, result);
    const { raisedInWindow, storms } = await startStorms(round);
    await routeChanges(round, storms);
    await escalate(round, storms);
    await sendDigests(round, storms, raisedInWindow);
    if (fleetSummary) {
      result.fleetDigests = await queueFleetDigests({ ...round, sendHour: settings.fleetDigestHour, summaryOf: fleetSummary });
    }
    return result;
  });
}

async function openRound(client: pg.PoolClient, settings: AlarmSettings, nowMs: number, result: RouteResult): Promise<Round> {
  const now = new Date(nowMs);
  const orgs = new Map<string, Org>();
  const org = async (id: string): Promise<Org> => {
    let o = orgs.get(id);
    if (!o) {
      const masked = (await client.query<{ m: boolean }>('select "MaskFaultDetails" as m from organizations where "OrganizationID" = $1', [id])).rows[0]?.m ?? false;
      const rules = routingRules(await readRules(client, id), masked);
      o = { rules, recipients: new Map((await readRecipients(client, id)).map((r) => [r.id, r])), masked };
      orgs.set(id, o);
    }
    return o;
  };
  // Messages each recipient was sent in the last 24 h (the cap), counted once and kept up to date below.
  const sent = new Map<string, number>((await client.query<{ recipient_id: string; n: number }>(
    `select recipient_id, count(*)::int as n from alarm_outbox where suppressed is null and created_at > $1::timestamptz - interval '24 hours' group by 1`, [now])).rows.map((r) => [r.recipient_id, r.n]));
  const store = async ({ recipient, kind, dedupKey, lane, payload, capped }: PlannedMessage<StoredRecipient>): Promise<'sent' | 'suppressed' | 'duplicate'> => {
    const cap = recipient.capPerDay ?? settings.capPerDay;
    const over = capped && !underCap(sent.get(recipient.id) ?? 0, cap);
    const { rowCount } = await client.query(
      `insert into alarm_outbox ("OrganizationID", recipient_id, alarm_id, kind, lane, dedup_key, payload, suppressed, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (recipient_id, dedup_key) do nothing`,
      [recipient.OrganizationID, recipient.id, payload.alarmId, kind, lane, dedupKey, JSON.stringify(payload), over ? 'cap' : null, now]);
    if (!rowCount) return 'duplicate';
    if (over) { result.suppressed++; return 'suppressed'; }
    sent.set(recipient.id, (sent.get(recipient.id) ?? 0) + 1);
    result.messages++;
    return 'sent';
  };
  const storm = { threshold: settings.stormThreshold, windowMs: settings.stormWindowMinutes * 60_000 };
  return { client, now, nowMs, portalUrl: settings.portalUrl ?? null, storm, result, org, store };
}

/** Storms: alarms raised in the last window, per organisation; the storms in progress, with those starting now. */
async function startStorms({ client, now, nowMs, storm }: Round): Promise<{ raisedInWindow: Map<string, number>; storms: Map<string, StormFact> }> {
  const raisedInWindow = new Map((await client.query<{ org: string; n: number }>(
    `select a."OrganizationID" as org, count(*)::int as n from alarm_changes c join alarms a on a.id = c.alarm_id
      where c.change = 'raised' and c.at > $1::timestamptz - $2 * interval '1 millisecond' and c.at <= $1::timestamptz group by 1`, [now, storm.windowMs])).rows.map((r) => [r.org, r.n]));
  const storms = new Map((await client.query<StormFact>(
    'select "OrganizationID", started_at, digest_at, digests from alarm_storms for update')).rows.map((r) => [r.OrganizationID, r]));
  for (const id of stormsStarting(raisedInWindow, new Set(storms.keys()), storm)) {
    // The first digest covers the window that made the storm: those alarms were not sent one by one either.
    const from = new Date(nowMs - storm.windowMs);
    await client.query('insert into alarm_storms ("OrganizationID", started_at, digest_at) values ($1, $2, $3)', [id, now, from]);
    storms.set(id, { OrganizationID: id, started_at: now, digest_at: from, digests: 0 });
  }
  return { raisedInWindow, storms };
}

/**
 * Whether a chattering kind's clear (`c` of alarm `a`; $2 now, $3 the hold) still waits: the row may still reopen
 * (unacknowledged, no newer row of its device and kind, and the device's newest check-in still within the window
 * of the row's last raise: only a newer check-in acts, alarms/raise.ts) and it has not stayed cleared for the hold.
 * Inside a case on the kind: only chattering kinds' episodes are check-in dates.
 */
const HELD_CLEAR = `a.acknowledged_at is null
  and c.at > $2::timestamptz - $3 * interval '1 millisecond'
  and not exists (select 1 from alarms n where n."IMEINumber" = a."IMEINumber" and n.kind = a.kind and n.id > a.id)
  and not exists (select 1 from checkin_clock k where k."IMEINumber" = a."IMEINumber"
                   and k.last_date > coalesce(a.last_episode, a.episode)::timestamptz + $3 * interval '1 millisecond')`;

/**
 * Raises and ends not routed yet, oldest first; each marked routed with the rows it made. The alarms' classes and
 * the routed marks are written once for the round, after its messages (the same transaction): a round of many
 * changes costs a statement per message, not three per change. A chattering kind's clear waits while its row may
 * reopen (HELD_CLEAR): a raise within the window takes it back (alarms/raise.ts;
 * docs/decisions.md#hot-spots-and-chattering-alarms).
 */
async function routeChanges(round: Round, storms: ReadonlyMap<string, StormFact>): Promise<void> {
  const { client, now, nowMs, portalUrl, result } = round;
  const { rows: changes } = await client.query<ChangeRow>(
    `select c.id as change_id, c.change, ${ALARM_COLUMNS}
       from alarm_changes c join alarms a on a.id = c.alarm_id ${ALARM_JOINS}
      where c.routed_at is null
        and not coalesce(case when c.change = 'cleared' and a.kind = any($1::text[]) then ${HELD_CLEAR} end, false)
      order by c.id limit 2000`, [CHATTERING_KINDS, now, CLEAR_HOLD_MS]);
  const classes: { id: number; class: string }[] = [];
  for (const c of changes) {
    const o = await round.org(c.OrganizationID);
    const inStorm = storms.has(c.OrganizationID);
    if (c.change === 'raised') {
      const plan = planRaise(c, o, inStorm, nowMs, portalUrl);
      if (plan.class) classes.push({ id: c.id, class: plan.class });
      for (const m of plan.messages) await round.store(m);
    } else if (!inStorm) {
      // Read per change: a raise routed earlier in this round has just told its recipients.
      const { rows: told } = await client.query<{ recipient_id: string }>(
        `select distinct recipient_id from alarm_outbox where alarm_id = $1 and kind in ('raised', 'escalated') and suppressed is null order by 1`, [c.id]);
      for (const m of planClear(c, o, told.map((t) => t.recipient_id), inStorm, portalUrl)) await round.store(m);
    }
    result.routed++;
  }
  if (classes.length) {
    await client.query('update alarms a set class = u.c from unnest($1::bigint[], $2::text[]) as u(id, c) where a.id = u.id',
      [classes.map((x) => x.id), classes.map((x) => x.class)]);
  }
  if (!changes.length) return;
  await failpoint('alarms.router-before-mark');
  // The mark takes each change's row lock, as a reopening raise does: a clear taken back meanwhile is gone, and
  // its message must not be sent (alarms/raise.ts).
  const { rowCount } = await client.query('update alarm_changes set routed_at = $2 where id = any($1::bigint[]) and routed_at is null', [changes.map((c) => c.change_id), now]);
  if (rowCount !== changes.length) throw new ChangeTakenBack('a change of the round was taken back by a reopening raise');
}

/** Escalation: open, unacknowledged operations alarms whose raise was routed, outside storms. */
async function escalate(round: Round, storms: ReadonlyMap<string, StormFact>): Promise<void> {
  const { client, nowMs, portalUrl, result } = round;
  const escalating = [...new Set((await client.query<{ org: string }>(
    `select distinct "OrganizationID" as org from alarm_rules where enabled and class = 'operations' and escalation is not null`)).rows.map((r) => r.org))]
    .filter((id) => !storms.has(id));
  if (!escalating.length) return;
  const { rows: open } = await client.query<AlarmFact>(
    `select ${ALARM_COLUMNS} from alarms a ${ALARM_JOINS}
      where a."OrganizationID" = any($1) and a.cleared_at is null and a.acknowledged_at is null
        and exists (select 1 from alarm_changes c where c.alarm_id = a.id and c.change = 'raised' and c.routed_at is not null)`, [escalating]);
  for (const a of open) {
    for (const m of planEscalations(a, await round.org(a.OrganizationID), nowMs, portalUrl)) {
      if ((await round.store(m)) === 'sent') result.escalations++;
    }
  }
}

/** Digests: one per window while a storm lasts; a closing one when a whole window stays calm. */
async function sendDigests(round: Round, storms: ReadonlyMap<string, StormFact>, raisedInWindow: ReadonlyMap<string, number>): Promise<void> {
  const { client, now, nowMs, portalUrl, storm, result } = round;
  for (const s of storms.values()) {
    const step = digestStep(s, raisedInWindow.get(s.OrganizationID) ?? 0, nowMs, storm);
    if (step === 'wait') continue;
    const o = await round.org(s.OrganizationID);
    const raisedBetween = async (from: Date) => (await client.query<AlarmFact>(
      `select ${ALARM_COLUMNS} from alarms a ${ALARM_JOINS} where a."OrganizationID" = $1 and a.raised_at > $2 and a.raised_at <= $3`, [s.OrganizationID, from, now])).rows;
    const period = await raisedBetween(s.digest_at);
    const whole = await raisedBetween(new Date(s.started_at.getTime() - storm.windowMs));
    for (const m of planDigest(s, step === 'end', period, whole, o, nowMs, portalUrl)) {
      await round.store(m);
      result.digests++;
    }
    if (step === 'end') await client.query('delete from alarm_storms where "OrganizationID" = $1', [s.OrganizationID]);
    else await client.query('update alarm_storms set digest_at = $2, digests = digests + 1 where "OrganizationID" = $1', [s.OrganizationID, now]);
  }
}
