// The fleet digest (issue 44 point 6; docs/decisions.md#fleet-digest): each recipient that asks for one gets the
// organisation's fleet summary once a day or once a week, as an alarm outbox row like every alarm message
// (its channel, retries, dead letters and the deliveries list). A step of the router's round: one process at a
// time, and the period is the row's dedup key (domain/fleet-digest.ts), so a crash, a restart or a second
// process never sends a period twice, and a period the service was down for is sent when it comes back.
import type pg from 'pg';
import { failpoint } from '../config/failpoints.js';
import type { PlannedMessage } from '../domain/alarm-routing-plan.js';
import { effectiveTimeZone } from '../domain/display-time.js';
import { dueFleetDigest, type FleetDigestPeriod } from '../domain/fleet-digest.js';
import { readRecipients, type StoredRecipient } from './store.js';

/**
 * The organisation's fleet summary, exactly as `GET /api/fleet/summary` answers its admin: the digest's counts
 * are the API's by construction. Given by the caller (the summary lives above alarms/ in the house).
 */
export type FleetSummaryOf = (db: pg.ClientBase, org: string, now: Date) => Promise<object>;

export interface FleetDigestRound {
  client: pg.PoolClient;
  nowMs: number;
  /** FLEET_DIGEST_HOUR: the local hour from which a period's digest is sent. */
  sendHour: number;
  portalUrl: string | null;
  summaryOf: FleetSummaryOf;
  store(m: PlannedMessage<StoredRecipient>): Promise<'sent' | 'suppressed' | 'duplicate'>;
}

/** Queues the digests that are due and not yet queued; the number queued. */
export async function queueFleetDigests(round: FleetDigestRound): Promise<number> {
  const { client, nowMs, sendHour } = round;
  const zones = new Map((await client.query<{ id: string; tz: string | null }>(
    `select o."OrganizationID" as id, o.timezone as tz from organizations o
      where exists (select 1 from alarm_recipients r where r."OrganizationID" = o."OrganizationID" and r.fleet_digest is not null)`)).rows
    .map((o) => [o.id, effectiveTimeZone(o.tz)]));
  if (zones.size === 0) return 0;
  const due: { recipient: StoredRecipient; period: FleetDigestPeriod }[] = [];
  for (const recipient of (await readRecipients(client)).filter((r) => r.fleetDigest !== null)) {
    due.push({ recipient, period: dueFleetDigest(recipient.fleetDigest!, nowMs, zones.get(recipient.OrganizationID) ?? 'UTC', sendHour) });
  }
  // Owed: no digest of the recipient queued since the period became due. Not only "this period's key not queued":
  // a recipient switched between daily and weekly, or an organisation whose zone moved, would be owed another
  // period the same morning (docs/decisions.md#review-of-fleet-health-as-a-crash). The index on
  // (recipient_id, dedup_key) answers the key range; the key itself stays the outbox's guard.
  const lastQueued = new Map((await client.query<{ id: string; at: Date | null }>(
    `select r.id, (select max(o.created_at) from alarm_outbox o
                    where o.recipient_id = r.id and o.dedup_key >= 'fleet-digest:' and o.dedup_key < 'fleet-digest;') as at
       from unnest($1::text[]) r(id)`,
    [due.map((d) => d.recipient.id)])).rows.map((r) => [r.id, r.at?.getTime() ?? -Infinity]));
  const owed = due.filter((d) => (lastQueued.get(d.recipient.id) ?? -Infinity) < d.period.dueAtMs);
  const summaries = new Map<string, object>();
  let sent = 0;
  for (const { recipient, period } of owed) {
    const org = recipient.OrganizationID;
    if (!summaries.has(org)) summaries.set(org, await round.summaryOf(client, org, new Date(nowMs)));
    const outcome = await round.store({
      recipient, kind: 'fleet-digest', dedupKey: period.key, lane: 'fleet-digest', capped: false,
      payload: {
        type: 'fleet-digest', alarmId: null, OrganizationID: org, every: recipient.fleetDigest!, from: period.firstDay, to: period.lastDay,
        fleet: summaries.get(org)!, link: round.portalUrl ? `${round.portalUrl.replace(/\/$/, '')}/fleet` : null,
      },
    });
    if (outcome === 'sent') sent++;
  }
  await failpoint('alarms.fleet-digest-queued');
  return sent;
}
