-- Storage lifecycle (docs/decisions.md#storage-lifecycle): the four device-data tables become
-- range-partitioned by month (UTC) on a timestamp that never changes after insert and is already part of
-- each idempotency key, so the keys stay exactly what they were:
--   device_records      "date"                    unique ("IMEINumber", "date")
--   device_currents     "PacketTimestamp"         primary key ("IMEINumber", "PacketTimestamp")
--   event_records       "ReportedEventTimestamp"  unique ("IMEINumber", "EventID", "ReportedEventTimestamp")
--   dm1_event_records   "ReportedEventTimestamp"  unique ("IMEINumber", "EventID", "ReportedEventTimestamp")
-- (EventTimestamp is not the key: the Fault <50 rule moves it, and a key that moves would let a redelivered
-- event in twice.) The identity columns stay unique through their sequences; their primary keys gain the
-- partition key, as PostgreSQL requires. Foreign keys into device_records go: a key into a partitioned table
-- must carry its partition key, and persist is the one writer of both sides, in one transaction.
--
-- A live installation is migrated in place, inside this migration's transaction: rows are copied with their
-- identities, counters (migration 0004) are carried over untouched, and ingestion resumes when it commits.

-- Which column partitions each table; storage/ reads it, so this is the one list.
create table storage_partitioned_tables (
  table_name  text primary key,
  time_column text not null
);
insert into storage_partitioned_tables values
  ('device_records', 'date'), ('device_currents', 'PacketTimestamp'),
  ('event_records', 'ReportedEventTimestamp'), ('dm1_event_records', 'ReportedEventTimestamp');

create function fl_partition_name(parent text, month date) returns text language sql immutable as
  $$ select parent || '_p' || to_char(month, 'YYYYMM') $$;

-- Creates the month partition of every table above, where missing; returns how many it created. Rows the
-- default partition holds for that month move into the new partition first (PostgreSQL refuses to create a
-- partition whose rows sit in the default one). Concurrent callers serialise on an advisory lock.
create function fl_ensure_month(month_in date) returns integer language plpgsql as $$
declare
  month date := date_trunc('month', month_in)::date;
  lo timestamptz := month::timestamp at time zone 'UTC';
  hi timestamptz := (month + interval '1 month')::timestamp at time zone 'UTC';
  t record;
  part text;
  strays boolean;
  made integer := 0;
begin
  if (select bool_and(to_regclass(fl_partition_name(table_name, month)) is not null) from storage_partitioned_tables) then
    return 0;
  end if;
  perform pg_advisory_xact_lock(hashtext('fl_partition_month'), (extract(year from month) * 100 + extract(month from month))::int);
  for t in select table_name, time_column from storage_partitioned_tables order by table_name loop
    part := fl_partition_name(t.table_name, month);
    continue when to_regclass(part) is not null;
    execute format('select exists (select 1 from %I where %I >= $1 and %I < $2)', t.table_name || '_default', t.time_column, t.time_column)
      into strays using lo, hi;
    if strays then
      -- Through the parent, so the counters' statement triggers see the delete and the insert (net zero).
      execute format('create temp table fl_strays on commit drop as select * from %I where %I >= $1 and %I < $2', t.table_name, t.time_column, t.time_column) using lo, hi;
      execute format('delete from %I where %I >= $1 and %I < $2', t.table_name, t.time_column, t.time_column) using lo, hi;
    end if;
    execute format('create table %I partition of %I for values from (%L) to (%L)', part, t.table_name, lo, hi);
    if strays then
      execute format('insert into %I overriding system value select * from fl_strays', t.table_name);
      drop table fl_strays;
    end if;
    made := made + 1;
  end loop;
  return made;
end $$;

-- The existing tables step aside; their rows move into the partitioned ones below.
alter table device_records rename to device_records_unpartitioned;
alter table device_currents rename to device_currents_unpartitioned;
alter table event_records rename to event_records_unpartitioned;
alter table dm1_event_records rename to dm1_event_records_unpartitioned;

do $$
declare
  t record;
  m date;
begin
  for t in select table_name, time_column from storage_partitioned_tables loop
    -- Same columns in the same order (defaults, identity, not-null), no keys yet: they are built after the copy.
    execute format('create table %I (like %I including defaults including identity including generated) partition by range (%I)',
                   t.table_name, t.table_name || '_unpartitioned', t.time_column);
    -- A check-in dated where no partition exists yet (a writer other than persist, which creates the month
    -- first) is kept here and moved out by fl_ensure_month, never refused.
    execute format('create table %I partition of %I default', t.table_name || '_default', t.table_name);
  end loop;
  -- Every month that holds data, and the current month with three ahead.
  for m in
    select distinct date_trunc('month', x at time zone 'UTC')::date from (
      select "date" as x from device_records_unpartitioned
      union select "PacketTimestamp" from device_currents_unpartitioned
      union select "ReportedEventTimestamp" from event_records_unpartitioned
      union select "ReportedEventTimestamp" from dm1_event_records_unpartitioned
      union select now() + g * interval '1 month' from generate_series(0, 3) g
    ) s
  loop
    perform fl_ensure_month(m);
  end loop;
end $$;

insert into device_records overriding system value select * from device_records_unpartitioned;
insert into device_currents select * from device_currents_unpartitioned;
insert into event_records overriding system value select * from event_records_unpartitioned;
insert into dm1_event_records overriding system value select * from dm1_event_records_unpartitioned;

-- Cascade removes the foreign keys of model_change_alerts and device_latest into device_records.
drop table event_records_unpartitioned, dm1_event_records_unpartitioned, device_currents_unpartitioned cascade;
drop table device_records_unpartitioned cascade;

-- The identities go on from where the old tables stopped.
select setval(pg_get_serial_sequence('device_records', 'RecordID'), coalesce((select max("RecordID") from device_records), 0) + 1, false);
select setval(pg_get_serial_sequence('event_records', 'Event_Record_ID'), coalesce((select max("Event_Record_ID") from event_records), 0) + 1, false);
select setval(pg_get_serial_sequence('dm1_event_records', 'Event_Record_ID'), coalesce((select max("Event_Record_ID") from dm1_event_records), 0) + 1, false);

-- Keys and indexes of migrations 0002, 0004 and 0007, built once over the copied rows (cheaper than keeping
-- them up to date row by row during the copy). Each becomes one index per partition.
alter table device_records add primary key ("RecordID", "date");
alter table device_records add constraint device_records_imei_date_key unique ("IMEINumber", "date");
create index device_records_date_id_imei on device_records ("date" desc, "RecordID" desc) include ("IMEINumber");

alter table device_currents add primary key ("IMEINumber", "PacketTimestamp");

alter table event_records add primary key ("Event_Record_ID", "ReportedEventTimestamp");
alter table event_records add constraint event_records_imei_event_key unique ("IMEINumber", "EventID", "ReportedEventTimestamp");
create index event_records_ts on event_records ("EventTimestamp" desc);
create index event_records_record on event_records ("DeviceRecordID");
create index event_records_imei_ts_id on event_records ("IMEINumber", "EventTimestamp" desc, "Event_Record_ID" desc);
create index event_records_critical on event_records ("EventTimestamp" desc, "Event_Record_ID" desc)
  where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL');

alter table dm1_event_records add primary key ("Event_Record_ID", "ReportedEventTimestamp");
alter table dm1_event_records add constraint dm1_event_records_imei_event_key unique ("IMEINumber", "EventID", "ReportedEventTimestamp");
create index dm1_event_records_ts on dm1_event_records ("EventTimestamp" desc);
create index dm1_event_records_record on dm1_event_records ("DeviceRecordID");
create index dm1_event_records_imei_ts_id on dm1_event_records ("IMEINumber", "EventTimestamp" desc, "Event_Record_ID" desc);
create index dm1_event_records_critical on dm1_event_records ("EventTimestamp" desc, "Event_Record_ID" desc)
  where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL');

-- The triggers of migrations 0004 (per-device counters) and 0005 (DNP3 feed wake-up), on the new parents.
-- Statement-level with transition tables: the rows routed to every partition are in `changed`.
create trigger device_records_counted_insert after insert on device_records referencing new table as changed for each statement execute function fl_count_rows();
create trigger device_records_counted_delete after delete on device_records referencing old table as changed for each statement execute function fl_count_rows();
create trigger event_records_counted_insert after insert on event_records referencing new table as changed for each statement execute function fl_count_rows();
create trigger event_records_counted_delete after delete on event_records referencing old table as changed for each statement execute function fl_count_rows();
create trigger dm1_event_records_counted_insert after insert on dm1_event_records referencing new table as changed for each statement execute function fl_count_rows();
create trigger dm1_event_records_counted_delete after delete on dm1_event_records referencing old table as changed for each statement execute function fl_count_rows();
create trigger device_records_dnp3_change after insert on device_records for each statement execute function dnp3_notify_change();
create trigger event_records_dnp3_change after insert on event_records for each statement execute function dnp3_notify_change();

-- Retention (storage/retention.ts): months an organisation keeps; null keeps everything.
alter table organizations add column "RetentionMonths" integer check ("RetentionMonths" > 0);

-- What retention archived: one row per file (a table's month, whole or one organisation's share).
create table storage_archives (
  id              bigint generated always as identity primary key,
  table_name      text not null,
  month           date not null,
  -- null: the whole partition (every organisation had expired the month); else that organisation's rows.
  "OrganizationID" text,
  file            text not null,
  row_count       bigint not null,
  checksum        text not null,
  archived_at     timestamptz not null default now(),
  restored_at     timestamptz
);
-- Not unique: rows that arrive late for an archived month are archived again, in a file of their own.
create index storage_archives_unit on storage_archives (table_name, month);
