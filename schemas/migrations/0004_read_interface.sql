-- The read interface (issue 4, point 5). Indexes that match each heavy list's ORDER BY ... LIMIT, including
-- its unique tie-breaker, so a page is an index walk that stops after `limit` rows; and per-device counts
-- kept by triggers, so the `total` of an unfiltered list is a sum over the devices in reach, not a count
-- over millions of rows.

-- data-log over every reachable device: ORDER BY "date" desc, "RecordID" desc.
-- Supersedes device_records_date ("date" desc), which it covers.
create index device_records_date_id on device_records ("date" desc, "RecordID" desc);
drop index if exists device_records_date;

-- critical-data: fault events newest first (the list is api/device-records/critical-data.ts
-- CRITICAL_EVENT_TYPES; the query spells the same literal list so the planner can use these).
create index event_records_critical on event_records ("EventTimestamp" desc, "Event_Record_ID" desc)
  where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL');
create index dm1_event_records_critical on dm1_event_records ("EventTimestamp" desc, "Event_Record_ID" desc)
  where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL');

-- events of one device: ORDER BY "EventTimestamp" desc with the id tie-breaker.
create index event_records_imei_ts_id on event_records ("IMEINumber", "EventTimestamp" desc, "Event_Record_ID" desc);
drop index if exists event_records_imei_ts;
create index dm1_event_records_imei_ts_id on dm1_event_records ("IMEINumber", "EventTimestamp" desc, "Event_Record_ID" desc);
drop index if exists dm1_event_records_imei_ts;

-- model-change alerts joined by device.
create index model_change_alerts_imei on model_change_alerts ("IMEINumber", "at" desc);

-- Per-device counts for `total` (api/device-records/totals.ts). Statement-level triggers with transition
-- tables: one upsert per statement (COPY and multi-row inserts included), rows in IMEI order so two
-- writers never lock counters in opposite orders. A re-delivered row that ON CONFLICT DO NOTHING skips is
-- not in the transition table, so it is not counted.
create table device_read_counts (
  "IMEINumber"     text primary key,
  records          bigint not null default 0,
  critical_events  bigint not null default 0
);

create function fl_count_rows() returns trigger language plpgsql as $$
declare
  sign integer := case when tg_op = 'DELETE' then -1 else 1 end;
begin
  if tg_table_name = 'device_records' then
    insert into device_read_counts ("IMEINumber", records)
      select "IMEINumber", sign * count(*) from changed group by 1 order by 1
    on conflict ("IMEINumber") do update set records = device_read_counts.records + excluded.records;
  elsif tg_table_name = 'model_change_alerts' then
    insert into device_read_counts ("IMEINumber", critical_events)
      select "IMEINumber", sign * count(*) from changed group by 1 order by 1
    on conflict ("IMEINumber") do update set critical_events = device_read_counts.critical_events + excluded.critical_events;
  else
    insert into device_read_counts ("IMEINumber", critical_events)
      select "IMEINumber", sign * count(*) from changed
       where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL')
       group by 1 order by 1
    on conflict ("IMEINumber") do update set critical_events = device_read_counts.critical_events + excluded.critical_events;
  end if;
  return null;
end $$;

create trigger device_records_counted_insert after insert on device_records referencing new table as changed for each statement execute function fl_count_rows();
create trigger device_records_counted_delete after delete on device_records referencing old table as changed for each statement execute function fl_count_rows();
create trigger event_records_counted_insert after insert on event_records referencing new table as changed for each statement execute function fl_count_rows();
create trigger event_records_counted_delete after delete on event_records referencing old table as changed for each statement execute function fl_count_rows();
create trigger dm1_event_records_counted_insert after insert on dm1_event_records referencing new table as changed for each statement execute function fl_count_rows();
create trigger dm1_event_records_counted_delete after delete on dm1_event_records referencing old table as changed for each statement execute function fl_count_rows();
create trigger model_change_alerts_counted_insert after insert on model_change_alerts referencing new table as changed for each statement execute function fl_count_rows();
create trigger model_change_alerts_counted_delete after delete on model_change_alerts referencing old table as changed for each statement execute function fl_count_rows();

-- Rows stored before this migration.
insert into device_read_counts ("IMEINumber", records)
  select "IMEINumber", count(*) from device_records group by 1
on conflict ("IMEINumber") do update set records = excluded.records;
insert into device_read_counts ("IMEINumber", critical_events)
  select "IMEINumber", count(*) from (
    select "IMEINumber" from event_records where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL')
    union all
    select "IMEINumber" from dm1_event_records where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL')
    union all
    select "IMEINumber" from model_change_alerts
  ) e group by 1
on conflict ("IMEINumber") do update set critical_events = excluded.critical_events;
