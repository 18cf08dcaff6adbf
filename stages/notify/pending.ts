// The pending_effects rows of some devices, taken for applying (docs/decisions.md#effects-exactly-once-across-a-crash).
// Inside the caller's transaction: each device's rows are locked by an advisory lock per device (taken in IMEI
// order, so two takers cannot deadlock) and deleted; the caller writes their effects and commits, or rolls back
// and they stay owed. Two processes (a restart's recovery and the live stage, or two members during a
// rebalance) thus apply a device's records once each, oldest first, never one overtaking another.
import type pg from 'pg';
import { persistedFromPending, type PendingEffectsRow } from '../effects.js';
import type { PersistedCheckIn } from '../../schemas/avro/values.js';

/** Advisory lock namespace of a device's pending effects ("notify", 41: the issue that made it). */
const LOCK_SPACE = 41;

/** Every pending record of these devices, oldest first per device, removed from the table in this transaction. */
export async function takePending(client: pg.ClientBase, imeis: readonly string[]): Promise<PersistedCheckIn[]> {
  if (imeis.length === 0) return [];
  const sorted = [...new Set(imeis)].sort();
  // In the order of the lock keys themselves: two IMEIs whose 32-bit hashes collide take one key, so an order by
  // IMEI could lock H then X in one transaction and X then H in another (a deadlock).
  await client.query('select pg_advisory_xact_lock($2, k) from (select distinct hashtext(i) as k from unnest($1::text[]) as i) as keys order by k', [sorted, LOCK_SPACE]);
  const { rows } = await client.query<PendingEffectsRow>(
    'delete from pending_effects where "IMEINumber" = any($1) returning "RecordID", message, "storedEventIds"', [sorted]);
  // RecordID order is the order persist stored them in: per device, the partition's order.
  return rows.map(persistedFromPending).sort((a, b) => a.DeviceRecordID - b.DeviceRecordID);
}

/** The newest pending record now (null: none): a recovery takes what was owed up to it, not the live flow after it. */
export async function newestOwed(pool: pg.Pool): Promise<number | null> {
  const { rows: [row] } = await pool.query<{ id: string | null }>('select max("RecordID") as id from pending_effects');
  return row?.id == null ? null : Number(row.id);
}

/** Devices with a pending record up to `upTo` (a restart's recovery), at most `limit`, leaving out `skip`. */
export async function devicesOwed(pool: pg.Pool, upTo: number, limit: number, skip: readonly string[] = []): Promise<string[]> {
  const { rows } = await pool.query<{ imei: string }>(
    'select distinct "IMEINumber" as imei from pending_effects where "RecordID" <= $1 and not ("IMEINumber" = any($3)) order by 1 limit $2', [upTo, limit, skip]);
  return rows.map((r) => r.imei);
}
