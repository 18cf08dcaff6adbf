-- A device's newest events kept by the pipeline (issue 45, docs/decisions.md#a-devices-newest-rows-kept), as
-- migration 0056 keeps its newest currents: a device's events list, unranged and in its default order, walked both
-- event tables' partitions (a walk per table entering every month). device_events_newest holds each device's newest
-- rows of the two tables together, in the list's order (EventTimestamp desc, EventTable, Event_Record_ID desc) and in
-- the list's shape (EventTable saying which table; the other table's columns null): at least
-- fl_events_newest_kept() of them (all of them when it has fewer), at most that plus fl_events_newest_slack(). The
-- API reads it only for pages inside that guarantee (api/device-records/events.ts).
--
-- The invariant, after every statement: a device's rows here are the newest n of its rows in event_records and
-- dm1_event_records together, n >= least(its rows, kept). Kept by statement triggers in the writer's transaction:
-- - insert (persist, an archive restore, a stray moved back): a row goes in when the device has fewer than `kept`
--   here (so this holds all of its rows) or when it sorts before the last kept; past kept + slack, the rows after the
--   first `kept` are trimmed.
-- - delete (an organisation's month expired, a stray moved out of the default partition): the same rows go; a device
--   left with fewer than `kept` here is filled again with its newest `kept` from both tables.
-- - update (persist moves a Fault <50's EventTimestamp: spec 3.4): the old rows go as a delete, then the new ones
--   come as an insert, after the fill, so a row moved among or past the kept ones is where the order puts it.
-- - a dropped partition fires no trigger: retention removes its rows here and fills again (storage/retention.ts).
-- Two writers of one device are serialised on its counter row of device_read_counts: an insert's or a delete's
-- counting trigger (0053's fl_count_rows) fires first (`..._counted_...` sorts before `..._newest_...`) and its
-- upsert locks the row to commit; an update, which nothing counts, locks the rows itself, in IMEI order.
-- A column added to either event table and shown by the list must be added here too
-- (test/integration/storage/newest-events.test.ts).

create function fl_events_newest_kept() returns integer language sql immutable as 'select 100';
create function fl_events_newest_slack() returns integer language sql immutable as 'select 25';

create table device_events_newest (
  "EventTable"             text not null,
  "Event_Record_ID"        bigint not null,
  "EventID"                bigint not null,
  "EventTimestamp"         timestamptz not null,
  "EventType"              text not null,
  "PrefaultCurrent"        double precision,
  "FaultCurrent"           double precision,
  "RecoverCurrent"         double precision,
  "PhaseAEvent"            text,
  "PhaseBEvent"            text,
  "PhaseCEvent"            text,
  "PacketTimestamp"        timestamptz not null,
  "IMEINumber"             text not null,
  "DeviceRecordID"         bigint not null,
  "ReportedEventTimestamp" timestamptz not null
);
-- Its one index, in the list's order: unique (an event is one row of one table), so a row already kept conflicts; a
-- kept row is found by it (device, instant, table, id) when its event is deleted or moved.
create unique index device_events_newest_order on device_events_newest ("IMEINumber", "EventTimestamp" desc, "EventTable", "Event_Record_ID" desc);

-- Each device's rows of both tables as device_events_newest holds them, newest first, up to `kept`.
create function fl_events_newest_of(device text, kept integer) returns setof device_events_newest language sql stable as $$
  select * from (
    (select 'standard'::text, e."Event_Record_ID", e."EventID", e."EventTimestamp", e."EventType", e."PrefaultCurrent", e."FaultCurrent",
            e."RecoverCurrent", null::text, null::text, null::text, e."PacketTimestamp", e."IMEINumber", e."DeviceRecordID", e."ReportedEventTimestamp"
       from event_records e where e."IMEINumber" = device order by e."EventTimestamp" desc, e."Event_Record_ID" desc limit kept)
    union all
    (select 'dm1'::text, e."Event_Record_ID", e."EventID", e."EventTimestamp", e."EventType", null::double precision, null::double precision,
            null::double precision, e."PhaseAEvent", e."PhaseBEvent", e."PhaseCEvent", e."PacketTimestamp", e."IMEINumber", e."DeviceRecordID", e."ReportedEventTimestamp"
       from dm1_event_records e where e."IMEINumber" = device order by e."EventTimestamp" desc, e."Event_Record_ID" desc limit kept)) u
  order by 4 desc, 1, 2 desc limit kept
$$;

-- `set enable_seqscan = off` on these functions, as on 0056's: a plan kept from when this table was small read it whole.
-- Devices with fewer than `kept` rows here: filled again with their newest `kept` (those already here conflict and
-- stay; a device whose rows are all here gains nothing).
create function fl_events_newest_refill(devices text[]) returns void language plpgsql set enable_seqscan = off as $$
declare
  kept constant integer := fl_events_newest_kept();
begin
  insert into device_events_newest
    select x.* from (select distinct unnest(devices) as "IMEINumber") d
      cross join lateral (select count(*) as n from device_events_newest k where k."IMEINumber" = d."IMEINumber") s
      cross join lateral fl_events_newest_of(d."IMEINumber", kept) x
     where s.n < kept
  on conflict do nothing;
end $$;

create function fl_events_newest_apply() returns trigger language plpgsql set enable_seqscan = off as $$
declare
  kept constant integer := fl_events_newest_kept();
  source constant text := case tg_table_name when 'event_records' then 'standard' else 'dm1' end;
  thinned text[];
  over text[];
begin
  if tg_op = 'UPDATE' then
    perform 1 from device_read_counts c where c."IMEINumber" in (select "IMEINumber" from added) order by c."IMEINumber" for update;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    with gone as (
      delete from device_events_newest k using removed r
       where k."IMEINumber" = r."IMEINumber" and k."EventTimestamp" = r."EventTimestamp" and k."EventTable" = source and k."Event_Record_ID" = r."Event_Record_ID"
      returning k."IMEINumber")
    select array_agg(distinct "IMEINumber") into thinned from gone;
    if thinned is not null then perform fl_events_newest_refill(thinned); end if;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    -- A row goes in when its device has fewer than `kept` here (all of its events are), or when it sorts before the last
    -- kept: both read once per device of the statement (`l`).
    if source = 'standard' then
      with l as (
        select d."IMEINumber", s.n, t."EventTimestamp", t."EventTable", t."Event_Record_ID" from (select distinct "IMEINumber" from added) d
          cross join lateral (select count(*) as n from device_events_newest k where k."IMEINumber" = d."IMEINumber") s
          left join lateral (select k."EventTimestamp", k."EventTable", k."Event_Record_ID" from device_events_newest k where k."IMEINumber" = d."IMEINumber"
                              order by k."EventTimestamp", k."EventTable" desc, k."Event_Record_ID" limit 1) t on true)
      insert into device_events_newest
        select 'standard', a."Event_Record_ID", a."EventID", a."EventTimestamp", a."EventType", a."PrefaultCurrent", a."FaultCurrent", a."RecoverCurrent",
               null, null, null, a."PacketTimestamp", a."IMEINumber", a."DeviceRecordID", a."ReportedEventTimestamp"
          from added a join l on l."IMEINumber" = a."IMEINumber"
         where l.n < kept or a."EventTimestamp" > l."EventTimestamp"
            or (a."EventTimestamp" = l."EventTimestamp" and ('standard' < l."EventTable" or ('standard' = l."EventTable" and a."Event_Record_ID" > l."Event_Record_ID")))
      on conflict do nothing;
    else
      with l as (
        select d."IMEINumber", s.n, t."EventTimestamp", t."EventTable", t."Event_Record_ID" from (select distinct "IMEINumber" from added) d
          cross join lateral (select count(*) as n from device_events_newest k where k."IMEINumber" = d."IMEINumber") s
          left join lateral (select k."EventTimestamp", k."EventTable", k."Event_Record_ID" from device_events_newest k where k."IMEINumber" = d."IMEINumber"
                              order by k."EventTimestamp", k."EventTable" desc, k."Event_Record_ID" limit 1) t on true)
      insert into device_events_newest
        select 'dm1', a."Event_Record_ID", a."EventID", a."EventTimestamp", a."EventType", null, null, null,
               a."PhaseAEvent", a."PhaseBEvent", a."PhaseCEvent", a."PacketTimestamp", a."IMEINumber", a."DeviceRecordID", a."ReportedEventTimestamp"
          from added a join l on l."IMEINumber" = a."IMEINumber"
         where l.n < kept or a."EventTimestamp" > l."EventTimestamp"
            or (a."EventTimestamp" = l."EventTimestamp" and ('dm1' < l."EventTable" or ('dm1' = l."EventTable" and a."Event_Record_ID" > l."Event_Record_ID")))
      on conflict do nothing;
    end if;
    -- Past kept + slack, the rows after the first `kept` go.
    select array_agg(d."IMEINumber") into over from (select distinct "IMEINumber" from added) d
     where exists (select 1 from device_events_newest z where z."IMEINumber" = d."IMEINumber" offset kept + fl_events_newest_slack());
    if over is not null then
      delete from device_events_newest k
       using unnest(over) d("IMEINumber")
       cross join lateral (select y."EventTimestamp", y."EventTable", y."Event_Record_ID" from device_events_newest y where y."IMEINumber" = d."IMEINumber"
                            order by y."EventTimestamp" desc, y."EventTable", y."Event_Record_ID" desc offset kept) x
       where k."IMEINumber" = d."IMEINumber" and k."EventTimestamp" = x."EventTimestamp" and k."EventTable" = x."EventTable" and k."Event_Record_ID" = x."Event_Record_ID";
    end if;
  end if;
  return null;
end $$;

-- One table emptied: its rows go, and each device is filled again from the other.
create function fl_events_newest_truncate() returns trigger language plpgsql as $$
declare
  thinned text[];
begin
  with gone as (delete from device_events_newest where "EventTable" = case tg_table_name when 'event_records' then 'standard' else 'dm1' end returning "IMEINumber")
  select array_agg(distinct "IMEINumber") into thinned from gone;
  if thinned is not null then perform fl_events_newest_refill(thinned); end if;
  return null;
end $$;

-- Writers of events wait for this migration to commit, so no row is written between the back-fill and the triggers.
lock table event_records, dm1_event_records in share mode;

create trigger event_records_newest_insert after insert on event_records referencing new table as added for each statement execute function fl_events_newest_apply();
create trigger event_records_newest_update after update on event_records referencing old table as removed new table as added for each statement execute function fl_events_newest_apply();
create trigger event_records_newest_delete after delete on event_records referencing old table as removed for each statement execute function fl_events_newest_apply();
create trigger event_records_newest_truncate after truncate on event_records for each statement execute function fl_events_newest_truncate();
create trigger dm1_event_records_newest_insert after insert on dm1_event_records referencing new table as added for each statement execute function fl_events_newest_apply();
create trigger dm1_event_records_newest_update after update on dm1_event_records referencing old table as removed new table as added for each statement execute function fl_events_newest_apply();
create trigger dm1_event_records_newest_delete after delete on dm1_event_records referencing old table as removed for each statement execute function fl_events_newest_apply();
create trigger dm1_event_records_newest_truncate after truncate on dm1_event_records for each statement execute function fl_events_newest_truncate();

insert into device_events_newest
  select x.* from (select "IMEINumber" from event_records union select "IMEINumber" from dm1_event_records) d
    cross join lateral fl_events_newest_of(d."IMEINumber", fl_events_newest_kept()) x;
analyze device_events_newest;
