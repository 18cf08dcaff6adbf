// The fleet digest's calendar (issue 44 point 6; docs/decisions.md#fleet-digest): which period a recipient's
// daily or weekly fleet digest covers at a given instant. Pure; the alarm router (alarms/router.ts) queues one
// message per recipient and period, keyed by the period, so a restart, a second process or a late start sends
// each digest once.
import { Temporal } from 'temporal-polyfill';

export const FLEET_DIGEST_EVERY = ['daily', 'weekly'] as const;
export type FleetDigestEvery = (typeof FLEET_DIGEST_EVERY)[number];

export interface FleetDigestPeriod {
  /** The outbox's dedup key: one message per recipient and period. */
  key: string;
  /** The period's first and last calendar day in the organisation's zone (YYYY-MM-DD, both inclusive). */
  firstDay: string;
  lastDay: string;
  /**
   * When the period became due: `sendHour` on its send day in the zone (on a day the clocks skip that hour, the
   * first instant after the gap). A recipient already sent a digest since then is owed none for this period
   * (alarms/fleet-digest.ts): one digest per send time, whatever the recipient or zone changed meanwhile.
   */
  dueAtMs: number;
}

/**
 * The latest period whose digest is due at `nowMs`: a daily digest covers yesterday and is due from `sendHour`
 * today (the organisation's zone); a weekly one covers the week Monday to Sunday and is due from `sendHour` on
 * the Monday after. Before today's (this Monday's) send hour the period before is still the latest due, so a
 * digest the service was down for goes out when it comes back, once.
 */
export function dueFleetDigest(every: FleetDigestEvery, nowMs: number, timeZone: string, sendHour: number): FleetDigestPeriod {
  const now = Temporal.Instant.fromEpochMilliseconds(nowMs).toZonedDateTimeISO(timeZone);
  let sendDay = now.toPlainDate();
  if (every === 'weekly') sendDay = sendDay.subtract({ days: sendDay.dayOfWeek - 1 });
  if (now.hour < sendHour && Temporal.PlainDate.compare(sendDay, now.toPlainDate()) === 0) sendDay = sendDay.subtract(every === 'daily' ? { days: 1 } : { weeks: 1 });
  const lastDay = sendDay.subtract({ days: 1 });
  const firstDay = every === 'daily' ? lastDay : lastDay.subtract({ days: 6 });
  const dueAt = sendDay.toPlainDateTime({ hour: sendHour }).toZonedDateTime(timeZone, { disambiguation: 'compatible' });
  return { key: `fleet-digest:${every}:${firstDay.toString()}`, firstDay: firstDay.toString(), lastDay: lastDay.toString(), dueAtMs: dueAt.epochMilliseconds };
}
