// The pending_effects rows of some devices, taken for applying in two steps
// (docs/decisions.md#effects-exactly-once-across-a-crash, #effects-exactly-once-sweep-feed-chunks):
//
// 1. takeUnapplied: the oldest rows not yet applied are marked applied; the caller writes their Postgres effects
//    (outbox, marks, alarms) in the same transaction and commits.
// 2. takeApplied: the oldest applied rows, whose DNP3 feed is still owed; the caller produces their feed records,
//    then deletes them (clearFeed) in the same transaction and commits.
//
// Both run inside the caller's transaction and first take an advisory lock per device (in the order of the lock
// keys, so two takers cannot deadlock): two processes (the live stage, a recovery, the sweep, two members
// during a rebalance) take turns per device, so each record is applied once and a device's records are applied,
// and its feed produced, oldest first. At most `limit` rows per call: a backlog goes in bounded chunks.
import type pg from 'pg';
import { persistedFromPending, type PendingEffectsRow } from '../effects.js';
import type { PersistedCheckIn } from '../../schemas/avro/values.js';

/** Advisory lock namespace of a device's pending effects ("notify", 41: the issue that made it). */
const LOCK_SPACE = 41;

async function lockDevices(client: pg.ClientBase, imeis: readonly string[]): Promise<string[]> {
  const sorted = [...new Set(imeis)].sort();
  // In the order of the lock keys themselves: two IMEIs whose 32-bit hashes collide take one key, so an order by
  // IMEI could lock H then X in one transaction and X then H in another (a deadlock).
  await client.query('select pg_advisory_xact_lock($2, k) from (select distinct hashtext(i) as k from unnest($1::text[]) as i) as keys order by k', [sorted, LOCK_SPACE]);
  return sorted;
}

// RecordID order is the order persist stored them in: per device, the partition's order. Taking the lowest
// RecordIDs of several devices takes, of each device, a prefix of its rows.
const byRecord = (rows: PendingEffectsRow[]) => rows.map(persistedFromPending).sort((a, b) => a.DeviceRecordID - b.DeviceRecordID);

/** The oldest `limit` rows of these devices whose Postgres effects are owed, marked applied in this transaction. */
export async function takeUnapplied(client: pg.ClientBase, imeis: readonly string[], limit: number): Promise<PersistedCheckIn[]> {
  if (imeis.length === 0) return [];
  const sorted = await lockDevices(client, imeis);
  const { rows } = await client.query<PendingEffectsRow>(
    `update pending_effects set applied_at = now() where "RecordID" in (
       select "RecordID" from pending_effects where "IMEINumber" = any($1) and applied_at is null order by "RecordID" limit $2)
     returning "RecordID", message, "storedEventIds"`, [sorted, limit]);
  return byRecord(rows);
}

/** The oldest `limit` applied rows of these devices: their DNP3 feed is owed. clearFeed deletes them once produced. */
export async function takeApplied(client: pg.ClientBase, imeis: readonly string[], limit: number): Promise<PersistedCheckIn[]> {
  if (imeis.length === 0) return [];
  const sorted = await lockDevices(client, imeis);
  const { rows } = await client.query<PendingEffectsRow>(
    `select "RecordID", message, "storedEventIds" from pending_effects
      where "IMEINumber" = any($1) and applied_at is not null order by "RecordID" limit $2`, [sorted, limit]);
  return byRecord(rows);
}

/** Nothing more is owed for these records. */
export async function clearFeed(client: pg.ClientBase, recordIds: readonly number[]): Promise<void> {
  await client.query('delete from pending_effects where "RecordID" = any($1)', [recordIds]);
}

/** The newest pending record now (null: none): a recovery takes what was owed up to it, not the live flow after it. */
export async function newestOwed(pool: pg.Pool): Promise<number | null> {
  const { rows: [row] } = await pool.query<{ id: string | null }>('select max("RecordID") as id from pending_effects');
  return row?.id == null ? null : Number(row.id);
}

/**
 * Devices with something owed, at most `limit`, leaving out `skip`: up to the record `upTo` (a restart's
 * recovery), or owed for longer than `olderThanMs` (the sweep).
 */
export async function devicesOwed(pool: pg.Pool, which: { upTo: number } | { olderThanMs: number }, limit: number, skip: readonly string[] = []): Promise<string[]> {
  const [cond, arg] = 'upTo' in which ? ['"RecordID" <= $1', which.upTo] : ['created_at < now() - $1 * interval \'1 millisecond\'', which.olderThanMs];
  const { rows } = await pool.query<{ imei: string }>(
    `select distinct "IMEINumber" as imei from pending_effects where ${cond} and not ("IMEINumber" = any($3)) order by 1 limit $2`, [arg, limit, skip]);
  return rows.map((r) => r.imei);
}
