// Raising and ending alarms from the pipeline (the notify stage), in one transaction per batch (notify's own). Exactly once
// without coordination: an alarm's unique key (device, kind, episode) makes a re-delivered batch a no-op,
// the partial unique index keeps one active alarm per device and kind, and each raise or end is one
// alarm_changes row (unique per alarm and change) that the router sends on. The same transaction advances
// each device's check-in clock; its row lock orders it against the communication-lost clock (alarms/clock.ts).
import type pg from 'pg';
import { withTransaction } from '../db/transaction.js';
import { advanceClock, type ClockState } from '../domain/checkin-clock.js';
import { CHATTER_WINDOW_MS, chatters } from '../domain/alarm-chatter.js';
import { alarmLabel, COMMUNICATION_LOST, MODEL_CHANGE } from '../domain/alarm-kinds.js';
import { ONGOING_FAULT_TEXT } from '../domain/ongoing-fault-codes.js';
import type { CheckInAlarms } from './check-in-alarms.js';

interface ClockRow { IMEINumber: string; last_date: Date; intervals: number[]; expected_interval_s: number | null }

async function advanceClocks(client: pg.ClientBase, items: readonly CheckInAlarms[], nowMs: number): Promise<Set<CheckInAlarms>> {
  const imeis = [...new Set(items.map((i) => i.IMEINumber))].sort();
  const { rows } = await client.query<ClockRow>(
    'select "IMEINumber", last_date, intervals, expected_interval_s from checkin_clock where "IMEINumber" = any($1) order by 1 for update', [imeis]);
  const clocks = new Map<string, ClockState>(rows.map((r) => [r.IMEINumber, { lastMs: r.last_date.getTime(), intervals: r.intervals, expectedS: r.expected_interval_s }]));
  // Only the newest check-in of a device so far speaks for its state: one that arrives late is history.
  const current = new Set<CheckInAlarms>();
  for (const item of items) {
    const prev = clocks.get(item.IMEINumber) ?? null;
    const next = advanceClock(prev, Date.parse(item.date), nowMs);
    if (next !== prev) current.add(item);
    clocks.set(item.IMEINumber, next);
  }
  const changed = imeis.filter((i) => clocks.has(i));
  await client.query(
    `insert into checkin_clock ("IMEINumber", last_date, intervals, expected_interval_s, stored_at)
     select i, to_timestamp(l / 1000.0), coalesce((select array_agg(x::double precision) from jsonb_array_elements_text(v) x), '{}'), e, $5
       from unnest($1::text[], $2::double precision[], $3::jsonb[], $4::double precision[]) as u(i, l, v, e)
     on conflict ("IMEINumber") do update set last_date = excluded.last_date, intervals = excluded.intervals, expected_interval_s = excluded.expected_interval_s,
       stored_at = excluded.stored_at`,
    [changed, changed.map((i) => clocks.get(i)!.lastMs), changed.map((i) => JSON.stringify(clocks.get(i)!.intervals)), changed.map((i) => clocks.get(i)!.expectedS), new Date(nowMs)],
  );
  return current;
}

/** One alarm to end: the device's open alarm of `kind`, if it began before `date`. */
interface AlarmEnd { imei: string; kind: string; date: string }

/**
 * Ends the open alarms of a batch, one `cleared` change each: one named statement (prepared once per connection;
 * planning it per call cost more than running it, docs/decisions.md#postgres-cost-per-check-in).
 */
async function endAlarms(client: pg.ClientBase, ends: readonly AlarmEnd[], nowMs: number): Promise<void> {
  if (ends.length === 0) return;
  await client.query({
    name: 'alarms.end-batch',
    text: `with ended as (
       update alarms a set cleared_at = $4 from unnest($1::text[], $2::text[], $3::timestamptz[]) as u(i, k, d)
        where a."IMEINumber" = u.i and a.kind = u.k and a.cleared_at is null and coalesce(a.last_episode, a.episode)::timestamptz < u.d
       returning a.id, a.cleared_at)
     insert into alarm_changes (alarm_id, change, at) select id, 'cleared', cleared_at from ended order by id on conflict do nothing`,
    values: [ends.map((e) => e.imei), ends.map((e) => e.kind), ends.map((e) => e.date), new Date(nowMs)],
  });
}

/**
 * A check-in ends its device's open alarm of `kind` raised before it. Used for communication lost (the device
 * spoke again) and model change (a later check-in without a change confirms the model: the changed condition
 * held for one check-in; acknowledging never clears it, domain/alarm-states.ts).
 */
const endByCheckIn = (client: pg.ClientBase, items: readonly CheckInAlarms[], kind: string, nowMs: number) =>
  endAlarms(client, items.map((i) => ({ imei: i.IMEINumber, kind, date: i.date })), nowMs);

/** The ends of the fault-code transitions of `items`. */
const transitionEnds = (items: readonly CheckInAlarms[]): AlarmEnd[] =>
  items.flatMap((i) => (i.transition?.end ?? []).map((kind) => ({ imei: i.IMEINumber, kind, date: i.date })));

export interface RaiseInput {
  OrganizationID: string;
  IMEINumber: string;
  PowerLineID: string | null;
  kind: string;
  /** What began it; the same episode never raises twice. */
  episode: string;
  detail: Record<string, unknown>;
}

/** Raises an alarm unless the device already has one of this kind open or this episode was raised before. */
export async function raiseAlarm(client: pg.ClientBase, a: RaiseInput, nowMs: number): Promise<number | null> {
  return (await raiseAlarms(client, [a], nowMs))[0] ?? null;
}

/**
 * An alarm of an `event` kind (domain/alarm-kinds.ts): raised once per episode, routed like every other,
 * ended by its kind's own condition (never by acknowledgement). The entry point for kinds added to the table later.
 */
export const raiseEventAlarm = raiseAlarm;

/**
 * Ends the open alarms of `kinds` raised for `episode` (an event kind's own ending: an incident or a de-energised
 * section closing), one `cleared` change each.
 */
export async function endEventAlarms(client: pg.ClientBase, episode: string, kinds: readonly string[], now: Date): Promise<void> {
  await client.query(
    `with ended as (
       update alarms set cleared_at = $3 where episode = $1 and kind = any($2) and cleared_at is null returning id, cleared_at)
     insert into alarm_changes (alarm_id, change, at) select id, 'cleared', cleared_at from ended on conflict do nothing`,
    [episode, kinds, now],
  );
}

/** The alarm side of a notify batch, in a transaction of its own. */
export async function applyCheckInAlarms(pool: pg.Pool, items: readonly CheckInAlarms[], nowMs = Date.now()): Promise<void> {
  if (items.length === 0) return;
  await withTransaction(pool, (client) => applyCheckInAlarmsIn(client, items, nowMs));
}

/**
 * The alarm side of a notify batch, inside the caller's transaction (notify's, which also clears what the batch
 * was owed: docs/decisions.md#effects-exactly-once-across-a-crash): clocks, the end of silences, fault-code
 * transitions, model changes.
 */
export async function applyCheckInAlarmsIn(client: pg.ClientBase, items: readonly CheckInAlarms[], nowMs = Date.now()): Promise<void> {
  if (items.length === 0) return;
  const current = await advanceClocks(client, items, nowMs);
  await endByCheckIn(client, items.filter((i) => current.has(i)), COMMUNICATION_LOST, nowMs);
  await endByCheckIn(client, items.filter((i) => current.has(i) && !i.modelChange), MODEL_CHANGE, nowMs);
  const acting = items.filter((i) => current.has(i) && (i.transition || i.modelChange));
  // Set-based when each device acts once in the batch (then the order between devices does not matter); a
  // device with several transitions in one batch goes item by item, each end before the next raise.
  if (new Set(acting.map((i) => i.IMEINumber)).size === acting.length) {
    await endAlarms(client, transitionEnds(acting), nowMs);
    await raiseAlarms(client, acting.flatMap(raisesOf), nowMs);
    return;
  }
  for (const item of acting) {
    await endAlarms(client, transitionEnds([item]), nowMs);
    await raiseAlarms(client, raisesOf(item), nowMs);
  }
}

/** What one acting check-in raises: its new fault-code kind (if any), then a model change (if any). */
function raisesOf(item: CheckInAlarms): RaiseInput[] {
  const detail = { deviceName: item.deviceName, code: item.code, codeText: ONGOING_FAULT_TEXT.get(item.code) ?? `Unknown (${item.code})`, at: item.date };
  return [
    ...(item.transition?.raise ? [{ ...item, kind: item.transition.raise, episode: item.date, detail }] : []),
    ...(item.modelChange ? [{ ...item, kind: MODEL_CHANGE, episode: item.date, detail: { ...detail, ...item.modelChange } }] : []),
  ];
}

/**
 * Raises a batch's alarms in one named statement (like endAlarms), each device at most once per kind; the ids of
 * those raised (not already open, not raised before for this episode), in batch order. A chattering raise
 * (domain/alarm-chatter.ts: a fault-code kind whose last row of the device is cleared, not acknowledged, and
 * was last raised within the window before it, by the check-ins' dates) reopens that row instead, one more
 * episode, in the same statement, and takes back its `cleared` change, which the router holds for the window: no
 * new row, no change to route. Once that clear was routed, the raise is a row of its own with a `raised` change,
 * so the return reaches the people who heard the clear. The clear's row lock (`for update of c`, also taken by
 * the router's marking, alarms/router.ts) decides which of the two happened. A new row lifts a shelving taken
 * for an earlier chattering row of its device and kind (docs/decisions.md#hot-spots-and-chattering-alarms).
 */
async function raiseAlarms(client: pg.ClientBase, raises: readonly RaiseInput[], nowMs: number): Promise<number[]> {
  if (raises.length === 0) return [];
  const { rows } = await client.query<{ id: number }>({
    name: 'alarms.raise-batch',
    text: `with u as (
       select o, i, k, e, p, d, c, n from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $8::boolean[])
         with ordinality as u(o, i, k, e, p, d, c, n)),
     held as (
       select u.n, a.id from u
         join alarms a on a.id = (select max(b.id) from alarms b where b."IMEINumber" = u.i and b.kind = u.k)
         join alarm_changes h on h.alarm_id = a.id and h.change = 'cleared' and h.routed_at is null
        -- The organisation's own row only: a device moved to another organisation starts rows of the new owner's
        -- (docs/decisions.md#review-of-the-held-clear-and-the-rollup).
        where u.c and a."OrganizationID" = u.o and a.cleared_at is not null and a.acknowledged_at is null
          -- Device time: newer than the row's last episode and within the window of it (only chattering kinds'
          -- episodes are check-in dates; the case keeps the casts from other kinds' rows).
          and case when u.c then u.e::timestamptz > coalesce(a.last_episode, a.episode)::timestamptz
                    and u.e::timestamptz <= coalesce(a.last_episode, a.episode)::timestamptz + make_interval(secs => $9::double precision / 1000)
              else false end
        for update of h),
     reopened as (
       update alarms a set cleared_at = null, chatter_count = a.chatter_count + 1, last_raised_at = $7, last_episode = u.e
         from held join u on u.n = held.n
        where a.id = held.id and a.cleared_at is not null and a.acknowledged_at is null
       returning u.n, a.id),
     taken_back as (
       delete from alarm_changes h using reopened r where h.alarm_id = r.id and h.change = 'cleared' and h.routed_at is null),
     raised as (
       insert into alarms ("OrganizationID", "IMEINumber", kind, episode, "PowerLineID", detail, raised_at)
       select o, i, k, e, p, d::jsonb, $7 from u where u.n not in (select n from reopened) order by n
       on conflict do nothing returning id, raised_at, "OrganizationID", "IMEINumber", kind),
     lifted as (
       delete from alarm_shelves s using raised r
        where s."IMEINumber" = r."IMEINumber" and s.kind = r.kind and s."OrganizationID" = r."OrganizationID"
          and s.chatter_alarm_id is not null and s.chatter_alarm_id <> r.id)
     insert into alarm_changes (alarm_id, change, at) select id, 'raised', raised_at from raised order by id returning alarm_id as id`,
    values: [
      raises.map((a) => a.OrganizationID), raises.map((a) => a.IMEINumber), raises.map((a) => a.kind), raises.map((a) => a.episode),
      raises.map((a) => a.PowerLineID), raises.map((a) => JSON.stringify({ label: alarmLabel(a.kind), ...a.detail })), new Date(nowMs),
      raises.map((a) => chatters(a.kind)), CHATTER_WINDOW_MS,
    ],
  });
  return rows.map((r) => r.id);
}
