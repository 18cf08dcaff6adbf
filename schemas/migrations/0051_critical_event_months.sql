-- Which devices had fault events of each critical-data source in each month (issue 45,
-- docs/decisions.md#critical-data-sources-a-group-has-not): a group user's week of critical data walked by time
-- stepped over every fault event of the organisation in that week to find its own, and a source its devices had
-- no event of that month (a crew area without DM1 indicators) cost the whole walk for no row. With this table a
-- page first learns, per source, which devices in reach had events in the range's months, and walks those
-- devices' indexes only (api/device-records/critical-data.ts, walk `by active device`).
--
-- One row per source, UTC month and IMEI. The month is that of the partition key (ReportedEventTimestamp; an
-- alert's `at`), which nothing updates (a Fault <50 shift moves EventTimestamp only); a row's events count the
-- fault events (domain/fault-events.ts, spelled as in 0004) stored for it. Kept by the triggers of 0004 in the
-- writer's own transaction, so a count is never behind a committed event; a dropped partition is uncounted by
-- retention (storage/retention.ts), as device_read_counts is. A row may be a superset (a count left above
-- zero would only cost a walk that finds nothing), never a subset: a device with an event in a month has a row
-- of that month with events > 0.
create table critical_event_months (
  source        text not null check (source in ('event', 'dm1_event', 'model_change')),
  month         date not null,
  "IMEINumber"  text not null,
  events        bigint not null,
  primary key (source, month, "IMEINumber")
);

create or replace function fl_count_rows() returns trigger language plpgsql as $$
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
    insert into critical_event_months (source, month, "IMEINumber", events)
      select 'model_change', date_trunc('month', "at" at time zone 'UTC')::date, "IMEINumber", sign * count(*) from changed group by 2, 3 order by 2, 3
    on conflict (source, month, "IMEINumber") do update set events = critical_event_months.events + excluded.events;
  else
    insert into device_read_counts ("IMEINumber", critical_events)
      select "IMEINumber", sign * count(*) from changed
       where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL')
       group by 1 order by 1
    on conflict ("IMEINumber") do update set critical_events = device_read_counts.critical_events + excluded.critical_events;
    insert into critical_event_months (source, month, "IMEINumber", events)
      select case tg_table_name when 'event_records' then 'event' else 'dm1_event' end,
             date_trunc('month', "ReportedEventTimestamp" at time zone 'UTC')::date, "IMEINumber", sign * count(*) from changed
       where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL')
       group by 2, 3 order by 2, 3
    on conflict (source, month, "IMEINumber") do update set events = critical_event_months.events + excluded.events;
  end if;
  return null;
end $$;

-- Events stored before this migration. The table lock first: a writer's trigger waits for this migration to
-- commit, so no event is counted twice or missed between the counts below and the trigger taking over.
lock table critical_event_months in access exclusive mode;
lock table event_records, dm1_event_records, model_change_alerts in share mode;
insert into critical_event_months (source, month, "IMEINumber", events)
  select 'event', date_trunc('month', "ReportedEventTimestamp" at time zone 'UTC')::date, "IMEINumber", count(*) from event_records
   where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL') group by 2, 3
  union all
  select 'dm1_event', date_trunc('month', "ReportedEventTimestamp" at time zone 'UTC')::date, "IMEINumber", count(*) from dm1_event_records
   where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL') group by 2, 3
  union all
  select 'model_change', date_trunc('month', "at" at time zone 'UTC')::date, "IMEINumber", count(*) from model_change_alerts group by 2, 3;
analyze critical_event_months;
