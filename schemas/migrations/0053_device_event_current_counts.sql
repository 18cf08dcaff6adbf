-- One device's events and currents counted, beside its check-ins (issue 45,
-- docs/decisions.md#a-devices-lists-total-from-its-counters): the total of a device's unfiltered, unranged events
-- or load history was counted per request, up to COUNT_CAP rows of each table, descending every monthly partition
-- (a third of an events page's Postgres time at 1M check-ins, and a second round trip). device_read_counts'
-- `records` already answers the data-log's; `events` (both event tables, every type) and `currents` answer these.
--
-- Kept like `records`: by the statement triggers of 0004 (fl_count_rows) in the writer's own transaction, so a
-- count is never behind a committed row; a re-delivered row that ON CONFLICT DO NOTHING skips is not in the
-- transition table, so it is not counted; a dropped partition is uncounted by retention (storage/retention.ts).
-- The columns came with 0052, committed before this, so the counters stay readable while this one counts.

create or replace function fl_count_rows() returns trigger language plpgsql as $$
declare
  sign integer := case when tg_op = 'DELETE' then -1 else 1 end;
begin
  if tg_table_name = 'device_records' then
    insert into device_read_counts ("IMEINumber", records)
      select "IMEINumber", sign * count(*) from changed group by 1 order by 1
    on conflict ("IMEINumber") do update set records = device_read_counts.records + excluded.records;
  elsif tg_table_name = 'device_currents' then
    insert into device_read_counts ("IMEINumber", currents)
      select "IMEINumber", sign * count(*) from changed group by 1 order by 1
    on conflict ("IMEINumber") do update set currents = device_read_counts.currents + excluded.currents;
  elsif tg_table_name = 'model_change_alerts' then
    insert into device_read_counts ("IMEINumber", critical_events)
      select "IMEINumber", sign * count(*) from changed group by 1 order by 1
    on conflict ("IMEINumber") do update set critical_events = device_read_counts.critical_events + excluded.critical_events;
    insert into critical_event_months (source, month, "IMEINumber", events)
      select 'model_change', date_trunc('month', "at" at time zone 'UTC')::date, "IMEINumber", sign * count(*) from changed group by 2, 3 order by 2, 3
    on conflict (source, month, "IMEINumber") do update set events = critical_event_months.events + excluded.events;
  else
    insert into device_read_counts ("IMEINumber", critical_events, events)
      select "IMEINumber",
             sign * count(*) filter (where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL')),
             sign * count(*)
        from changed group by 1 order by 1
    on conflict ("IMEINumber") do update set critical_events = device_read_counts.critical_events + excluded.critical_events,
                                             events = device_read_counts.events + excluded.events;
    insert into critical_event_months (source, month, "IMEINumber", events)
      select case tg_table_name when 'event_records' then 'event' else 'dm1_event' end,
             date_trunc('month', "ReportedEventTimestamp" at time zone 'UTC')::date, "IMEINumber", sign * count(*) from changed
       where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL')
       group by 2, 3 order by 2, 3
    on conflict (source, month, "IMEINumber") do update set events = critical_event_months.events + excluded.events;
  end if;
  return null;
end $$;

-- The rows stored before this migration. The tables' share locks first: a writer of events or currents waits for
-- this migration to commit, so no row is counted twice or missed between the counts below and the triggers taking
-- over. A check-in writer of a device being counted waits too (its trigger's upsert, on the counter row the
-- backfill updates); reads of the counters do not.
lock table event_records, dm1_event_records, device_currents in share mode;

create trigger device_currents_counted_insert after insert on device_currents referencing new table as changed for each statement execute function fl_count_rows();
create trigger device_currents_counted_delete after delete on device_currents referencing old table as changed for each statement execute function fl_count_rows();

insert into device_read_counts ("IMEINumber", events)
  select "IMEINumber", count(*) from (select "IMEINumber" from event_records union all select "IMEINumber" from dm1_event_records) e group by 1
on conflict ("IMEINumber") do update set events = excluded.events;
insert into device_read_counts ("IMEINumber", currents)
  select "IMEINumber", count(*) from device_currents group by 1
on conflict ("IMEINumber") do update set currents = excluded.currents;
analyze device_read_counts;
