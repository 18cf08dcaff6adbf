// SQL of the persist stage: per-connection staging tables (temporary, emptied at commit) and the merge
// statements that move one batch from staging into the real tables. No user text is ever part of this SQL:
// identifiers come from the column lists in rows.ts, values travel through COPY.
import { ALERT_COLUMNS, CURRENT_COLUMNS, DM1_EVENT_COLUMNS, EVENT_COLUMNS, RECORD_COLUMNS, SHIFT_COLUMNS, type Column } from './rows.js';
import { timestamptzLiteral } from '../../db/sql-literal.js';
import { healthUpsertSql } from '../../fleet/health-sql.js';

const q = (name: string) => `"${name}"`;

/** Columns of device_records computed by rules (spec 3.2, 3.3), as opposed to reported or copied at check-in. */
export const DERIVED_COLUMNS = ['model', 'Ongoing_fault', 'ActualOngoingFault', 'ReportedOngoingFault'] as const;
const list = (cols: readonly Column[], prefix = '') => cols.map((c) => prefix + q(c.name)).join(', ');

export const STAGING = {
  records: { table: 'fl_stage_records', lead: ['idx'], columns: RECORD_COLUMNS },
  events: { table: 'fl_stage_events', lead: ['idx', 'pos'], columns: EVENT_COLUMNS },
  dm1Events: { table: 'fl_stage_dm1_events', lead: ['idx', 'pos'], columns: DM1_EVENT_COLUMNS },
  currents: { table: 'fl_stage_currents', lead: ['idx'], columns: CURRENT_COLUMNS },
  alerts: { table: 'fl_stage_alerts', lead: ['idx'], columns: ALERT_COLUMNS },
  shifts: { table: 'fl_stage_shifts', lead: ['idx'], columns: SHIFT_COLUMNS },
} as const;
export type StagingName = keyof typeof STAGING;

/**
 * The notify input of each message that may speak (stages/persist/effects.ts), COPYed beside the rows, and what
 * the merge itself inserted: the records and events this transaction created. Together they make the
 * transaction's pending_effects rows (docs/decisions.md#effects-exactly-once-across-a-crash).
 */
export const EFFECTS_STAGING = {
  effects: 'create temp table if not exists fl_stage_effects (idx integer, message text) on commit delete rows',
  inserted: 'create temp table if not exists fl_stage_inserted ("RecordID" bigint, "IMEINumber" text, "date" timestamptz, source_message_id text) on commit delete rows',
  stored: 'create temp table if not exists fl_stage_stored ("DeviceRecordID" bigint, "EventID" bigint) on commit delete rows',
} as const;
export const copyEffectsSql = 'copy fl_stage_effects (idx, message) from stdin with (format csv)';

/** Run once per connection. ON COMMIT DELETE ROWS: each transaction starts with empty staging tables. */
export const createStagingSql = [
  ...Object.values(STAGING).map(({ table, lead, columns }) => `create temp table if not exists ${table} (${[...lead.map((l) => `${l} integer`), ...columns.map((c) => `${q(c.name)} ${c.type}`)].join(', ')}) on commit delete rows`),
  ...Object.values(EFFECTS_STAGING),
].join(';\n');

export const copySql = (name: StagingName) => {
  const { table, lead, columns } = STAGING[name];
  return `copy ${table} (${[...lead, ...columns.map((c) => q(c.name))].join(', ')}) from stdin with (format csv)`;
};

/**
 * The batch's time span: the first and last check-in date, and of the reported times of the stored events
 * the batch moves (null: none). Spelled into the SQL as constants so the planner keeps only the month
 * partitions the batch can touch (docs/decisions.md#storage-lifecycle): a join on values from the staging
 * tables alone would plan and open every partition of every month, for each statement of every batch.
 */
export interface BatchSpan { records: readonly [string, string]; shifts: readonly [string, string] | null }

/** Each statement in order, inside one transaction, for a batch spanning `span`. The last one returns what the stage forwards. */
export function mergeStatements(span: BatchSpan) {
  const [from, to] = span.records;
  // A record row matching a staged message, whether this batch inserted it or an earlier message did.
  const stagedRecord = `join device_records r on r."IMEINumber" = s."IMEINumber" and r."date" = s."date"
    and r."date" between ${timestamptzLiteral(from)} and ${timestamptzLiteral(to)}`;
  return {
    // In idx order, so within a batch the first of two same-date check-ins wins, as it would one by one.
    // The records this transaction created are noted (fl_stage_inserted): only they are owed notify's effects.
    records: `with ins as (insert into device_records (${list(RECORD_COLUMNS)})
      select ${list(RECORD_COLUMNS)} from fl_stage_records order by idx
      on conflict ("IMEINumber", "date") do nothing
      returning "RecordID", "IMEINumber", "date", source_message_id)
      insert into fl_stage_inserted select * from ins`,

    // `faultline replay --reprocess`: the derived columns of the record the same message stored are rewritten
    // with the rules now running. The caller guarantees one row per (IMEINumber, date) per statement.
    // A record it inserts (never stored before) is noted like a live one, so the health rollup counts it: an
    // inserted row's CreatedDate is this transaction's now(); an updated one keeps an earlier transaction's (a
    // partitioned table cannot return xmax).
    recordsReprocess: `with ins as (insert into device_records (${list(RECORD_COLUMNS)})
      select ${list(RECORD_COLUMNS)} from fl_stage_records order by idx
      on conflict ("IMEINumber", "date") do update
        set ${DERIVED_COLUMNS.map((c) => `${q(c)} = excluded.${q(c)}`).join(', ')}
        where device_records.source_message_id = excluded.source_message_id
          and (${DERIVED_COLUMNS.map((c) => `device_records.${q(c)}`).join(', ')}) is distinct from (${DERIVED_COLUMNS.map((c) => `excluded.${q(c)}`).join(', ')})
      returning "RecordID", "IMEINumber", "date", source_message_id, "CreatedDate" = now() as inserted)
      insert into fl_stage_inserted select "RecordID", "IMEINumber", "date", source_message_id from ins where inserted`,

    events: `with ins as (insert into event_records (${list(EVENT_COLUMNS)}, "DeviceRecordID")
      select ${list(EVENT_COLUMNS, 'e.')}, r."RecordID" from fl_stage_events e
      join fl_stage_records s on s.idx = e.idx ${stagedRecord}
      order by e.idx, e.pos
      on conflict ("IMEINumber", "EventID", "ReportedEventTimestamp") do nothing
      returning "IMEINumber", "EventID", "DeviceRecordID"),
      kept as (insert into fl_stage_stored select "DeviceRecordID", "EventID" from ins)
      select * from ins`,

    dm1Events: `with ins as (insert into dm1_event_records (${list(DM1_EVENT_COLUMNS)}, "DeviceRecordID")
      select ${list(DM1_EVENT_COLUMNS, 'e.')}, r."RecordID" from fl_stage_dm1_events e
      join fl_stage_records s on s.idx = e.idx ${stagedRecord}
      order by e.idx, e.pos
      on conflict ("IMEINumber", "EventID", "ReportedEventTimestamp") do nothing
      returning "IMEINumber", "EventID", "DeviceRecordID"),
      kept as (insert into fl_stage_stored select "DeviceRecordID", "EventID" from ins)
      select * from ins`,

    // Spec 3.4 for a Fault <50 that an earlier message stored (this message's events were inserted already
    // moved, rows.ts): move it back once; TimestampShifted makes a second move impossible.
    // (Nothing to move, the common case: a statement that plans no partition, keeping the results' positions.)
    shifts: span.shifts === null ? 'select 0 where false' : `update event_records e set "EventTimestamp" = x."toTimestamp", "TimestampShifted" = true
      from fl_stage_shifts x
      where e."IMEINumber" = x."IMEINumber" and e."EventID" = x."EventID"
        and e."ReportedEventTimestamp" = x."fromTimestamp" and not e."TimestampShifted"
        and e."ReportedEventTimestamp" between ${timestamptzLiteral(span.shifts[0])} and ${timestamptzLiteral(span.shifts[1])}`,

    currents: `insert into device_currents (${list(CURRENT_COLUMNS)})
      select ${list(CURRENT_COLUMNS)} from fl_stage_currents order by idx
      on conflict ("IMEINumber", "PacketTimestamp") do nothing`,

    alerts: `insert into model_change_alerts (${list(ALERT_COLUMNS)}, "DeviceRecordID")
      select ${list(ALERT_COLUMNS, 'a.')}, r."RecordID" from fl_stage_alerts a
      join fl_stage_records s on s.idx = a.idx ${stagedRecord}
      on conflict ("IMEINumber", "at") do nothing`,

    // Spec 6.1 step 8: LastCheckInTime only moves forward (a late, older check-in does not pull it back).
    lastCheckIn: `update device_information d set "LastCheckInTime" = x.latest
      from (select "IMEINumber", max("date") as latest from fl_stage_records group by "IMEINumber") x
      where d."IMEINumber" = x."IMEINumber" and (d."LastCheckInTime" is null or d."LastCheckInTime" < x.latest)`,

    // The newest record per IMEI of the batch, if it is at least as new as the one held (a late, older
    // check-in does not replace it; `replay --reprocess` of the newest one does refresh it).
    latest: `insert into device_latest ("IMEINumber", "RecordID", "date", "ActualOngoingFault", "BatteryOrLine")
      select distinct on (r."IMEINumber") r."IMEINumber", r."RecordID", r."date", r."ActualOngoingFault", r."BatteryOrLine"
        from fl_stage_records s ${stagedRecord}
       order by r."IMEINumber", r."date" desc
      on conflict ("IMEINumber") do update
        set "RecordID" = excluded."RecordID", "date" = excluded."date", "ActualOngoingFault" = excluded."ActualOngoingFault", "BatteryOrLine" = excluded."BatteryOrLine"
        where excluded."date" >= device_latest."date"
          and (device_latest."RecordID", device_latest."ActualOngoingFault", device_latest."BatteryOrLine") is distinct from (excluded."RecordID", excluded."ActualOngoingFault", excluded."BatteryOrLine")`,

    // Issue 44: each check-in this transaction stored (fl_stage_inserted, once each) folded into its device's day
    // row (fleet/); a replayed or redelivered one was not inserted, so it adds nothing.
    health: healthUpsertSql(`select distinct on (n."RecordID") s.*
        from fl_stage_inserted n
        join fl_stage_records s on s."IMEINumber" = n."IMEINumber" and s."date" = n."date" and s.source_message_id = n.source_message_id
       order by n."RecordID", s.idx`),

    // What notify owes each record this transaction created for a message that may speak: cleared by notify in
    // the transaction that writes it (stages/notify/effects.ts).
    pending: `insert into pending_effects ("RecordID", "IMEINumber", message, "storedEventIds")
      select distinct on (n."RecordID") n."RecordID", n."IMEINumber", f.message::json,
             coalesce((select array_agg(st."EventID" order by st."EventID") from fl_stage_stored st where st."DeviceRecordID" = n."RecordID"), '{}')
        from fl_stage_inserted n
        join fl_stage_records s on s."IMEINumber" = n."IMEINumber" and s."date" = n."date" and s.source_message_id = n.source_message_id
        join fl_stage_effects f on f.idx = s.idx
       order by n."RecordID", s.idx
      on conflict do nothing`,

    outcome: `select s.idx, r."RecordID", r.source_message_id = s.source_message_id as owns
      from fl_stage_records s ${stagedRecord} order by s.idx`,
  };
}

/** The merges of one batch in order: sent with the commit as one multi-statement query (db/transaction.ts commitWith). */
const MERGE_ORDER = ['records', 'events', 'dm1Events', 'shifts', 'currents', 'alerts', 'lastCheckIn', 'latest', 'health', 'pending', 'outcome'] as const;
/** Where each statement's result is in the answer to mergeScript. */
export const MERGE_RESULT = Object.fromEntries(MERGE_ORDER.map((name, i) => [name, i])) as Record<(typeof MERGE_ORDER)[number], number>;

export function mergeScript(reprocess: boolean, span: BatchSpan): string {
  const sql = mergeStatements(span);
  return MERGE_ORDER.map((name) => (name === 'records' && reprocess ? sql.recordsReprocess : sql[name])).join(';\n');
}
