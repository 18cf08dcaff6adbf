// persist: one transaction per batch. COPY the batch into staging tables, merge with ON CONFLICT DO NOTHING
// (a re-delivered message is a no-op), then forward each message with its RecordID to fi.persisted.v1.
//
// A batch the database refuses for its data (not for being away) is split and retried message by message,
// so one bad record is dead-lettered with the reason and the partition keeps moving.
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { TOPICS } from '../../schemas/avro/topics.js';
import { CHAIN_INPUT } from '../shape.js';
import type { ComputedCheckIn, DeadLetter, PersistedCheckIn } from '../../schemas/avro/values.js';
import type { Stage, StageResult } from '../runtime/stage.js';
import type { Batch } from '../runtime/transport/transport.js';
import { fromPg, publicDatabaseMessage } from '../../db/errors.js';
import { isRetriable } from '../../errors/base.js';
import { withTransactionOn } from '../../db/transaction.js';
import { toCsv } from '../../plumbing/csv.js';
import { copyEffectsSql, copySql, createStagingSql, MERGE_RESULT, mergeScript, STAGING, type BatchSpan, type StagingName } from './merge.js';
import { batchRows } from './rows.js';
import { REPROCESS_SOURCE } from '../../plumbing/sources.js';
import { observeStored } from './metrics.js';
import { ensureMonths, monthsOfBatch } from '../../storage/partitions.js';
import { owesEffects } from '../effects.js';
import { failpoint } from '../../config/failpoints.js';

const prepared = new WeakSet<pg.PoolClient>();

async function copyRows(client: pg.PoolClient, sql: string, rows: ReturnType<typeof batchRows>[StagingName]['rows']): Promise<void> {
  if (rows.length === 0) return;
  await pipeline(Readable.from([toCsv(rows)]), client.query(copyFrom(sql)));
}

/**
 * The notify input of each message that may owe effects, staged beside its rows: the merge turns those of the
 * records it creates into pending_effects rows, in the same transaction (docs/decisions.md#effects-exactly-once-across-a-crash).
 */
const effectsRows = (messages: readonly ComputedCheckIn[]) => messages.flatMap((m, idx) => (owesEffects(m) ? [[idx, JSON.stringify(m)]] : []));

/** First and last check-in date of the batch, and of the stored events it moves (merge.ts BatchSpan). */
export function batchSpan(messages: readonly ComputedCheckIn[]): BatchSpan {
  let from = Infinity, to = -Infinity, shiftFrom = Infinity, shiftTo = -Infinity;
  for (const m of messages) {
    const t = Date.parse(m.checkIn.device_data.date);
    if (t < from) from = t;
    if (t > to) to = t;
    for (const s of m.shifts) {
      const f = Date.parse(s.fromTimestamp);
      if (f < shiftFrom) shiftFrom = f;
      if (f > shiftTo) shiftTo = f;
    }
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  return { records: [iso(from), iso(to)], shifts: shiftFrom === Infinity ? null : [iso(shiftFrom), iso(shiftTo)] };
}

/**
 * Writes one batch in one transaction; returns the forwarded records in batch order. `reprocess` rewrites
 * the derived columns of already stored records; its batch must hold each (IMEINumber, date) once.
 */
export async function persistBatch(pool: pg.Pool, messages: readonly ComputedCheckIn[], { reprocess = false } = {}): Promise<PersistedCheckIn[]> {
  // pg's failures become ours here, at the stage's edge: the stage and the runtime read `retriable` (db/errors.ts).
  return writeBatch(pool, messages, reprocess).catch((err: unknown) => { throw fromPg(err) ?? err; });
}

async function writeBatch(pool: pg.Pool, messages: readonly ComputedCheckIn[], reprocess: boolean): Promise<PersistedCheckIn[]> {
  if (messages.length === 0) return [];
  // The month partitions first, in their own short transactions (a no-op lookup for months seen before).
  await ensureMonths(pool, monthsOfBatch(messages));
  const client = await pool.connect();
  let broken = false;
  try {
    if (!prepared.has(client)) {
      await client.query(createStagingSql);
      prepared.add(client);
    }
    const rows = batchRows(messages);
    return await withTransactionOn(client, async (_, tx) => {
      for (const name of Object.keys(STAGING) as StagingName[]) await copyRows(client, copySql(name), rows[name].rows);
      if (!reprocess) await copyRows(client, copyEffectsSql, effectsRows(messages));
      // Every merge and the commit in one round trip (a multi-statement simple query): on loopback each round
      // trip's socket write and wake-up cost more CPU than the statements themselves (docs/benchmarks.md).
      const results = await tx.commitWith(mergeScript(reprocess, batchSpan(messages)));
      const [events, dm1, outcome] = [results[MERGE_RESULT.events]!, results[MERGE_RESULT.dm1Events]!, results[MERGE_RESULT.outcome]!] as [
        pg.QueryResult<{ IMEINumber: string; EventID: number; DeviceRecordID: number }>, pg.QueryResult<{ IMEINumber: string; EventID: number; DeviceRecordID: number }>, pg.QueryResult<{ idx: number; RecordID: number; owns: boolean }>,
      ];

      // The batch and what it owes notify are durable; notify has written none of it (crash-point suite).
      await failpoint('persist.after-commit');
      const stored = new Map<number, number[]>();
      for (const e of [...events.rows, ...dm1.rows]) {
        const list = stored.get(e.DeviceRecordID) ?? [];
        list.push(e.EventID);
        stored.set(e.DeviceRecordID, list);
      }
      return outcome.rows.map(({ idx, RecordID, owns }) => ({
        ...messages[idx]!, DeviceRecordID: RecordID, ownsRecord: owns, storedEventIds: owns ? stored.get(RecordID) ?? [] : [],
      }));
    }, { onBrokenConnection: () => { broken = true; } });
  } catch (err) {
    const failure = fromPg(err);
    if (failure?.retriable) broken = true;
    throw failure ?? err;
  } finally {
    // A connection that failed mid-COPY may be unusable; let the pool replace it.
    client.release(broken);
  }
}

export function persistStage({ pool }: { pool: pg.Pool }): Stage<ComputedCheckIn> {
  const forward = (r: PersistedCheckIn) => ({ topic: TOPICS.persisted, key: r.checkIn.device_data.IMEINumber, value: r });

  return {
    name: 'persist',
    input: CHAIN_INPUT.persist,
    outputs: [TOPICS.persisted],
    async handle(batch: Batch<ComputedCheckIn>): Promise<StageResult> {
      const result: StageResult = { produce: [], deadLetters: [] };
      for (const { messages, reprocess } of writeGroups(batch.messages.map((m) => m.value))) {
        try {
          result.produce.push(...(await persistBatch(pool, messages, { reprocess })).map(forward));
          continue;
        } catch (err) {
          if (isRetriable(err)) throw err;
        }
        // Isolate the record the database refuses: one transaction per message.
        for (const m of messages) {
          try {
            result.produce.push(...(await persistBatch(pool, [m], { reprocess })).map(forward));
          } catch (err) {
            if (isRetriable(err)) throw err;
            result.deadLetters.push(storageRejection(m, err));
          }
        }
      }
      // Batch order matters downstream only per device, and every group keeps it.
      observeStored(result.produce);
      return result;
    },
  };
}

/**
 * Live records go in one group. Reprocessed ones (rare: an operator's `replay --reprocess`) go in rounds in
 * which each (IMEINumber, date) appears once, because one INSERT ... ON CONFLICT DO UPDATE may not touch a
 * row twice.
 */
export function writeGroups(messages: readonly ComputedCheckIn[]): { messages: ComputedCheckIn[]; reprocess: boolean }[] {
  const live = messages.filter((m) => m.source !== REPROCESS_SOURCE);
  const rounds: ComputedCheckIn[][] = [];
  for (const m of messages.filter((x) => x.source === REPROCESS_SOURCE)) {
    const key = `${m.checkIn.device_data.IMEINumber}@${m.checkIn.device_data.date}`;
    const round = rounds.find((r) => !r.some((x) => `${x.checkIn.device_data.IMEINumber}@${x.checkIn.device_data.date}` === key));
    if (round) round.push(m);
    else rounds.push([m]);
  }
  return [...(live.length ? [{ messages: live, reprocess: false }] : []), ...rounds.map((r) => ({ messages: r, reprocess: true }))];
}

function storageRejection(m: ComputedCheckIn, err: unknown): DeadLetter {
  return {
    messageId: m.messageId, source: m.source, imei: m.checkIn.device_data.IMEINumber, stage: 'persist',
    code: 'STORAGE_REJECTED', reason: `the database refused the record: ${publicDatabaseMessage(err)}`,
    body: JSON.stringify(m.checkIn), rejectedAt: Date.now(),
  };
}
