-- A device's newest events kept by the pipeline (issue 45, docs/decisions.md#a-devices-newest-rows-kept), as
-- migration 0057 keeps its newest currents: a device's events list, unranged and in its default order, walked both
-- event tables' partitions (a walk per table entering every month). device_events_newest holds each device's newest
-- rows of the two tables together, in the list's order (EventTimestamp desc, EventTable, Event_Record_ID desc) and in
-- the list's shape (EventTable saying which table; the other table's columns null): at least
-- fl_events_newest_kept() of them (all of them when it has fewer), at most that plus fl_events_newest_slack(). The
-- API reads it only for pages inside that guarantee (api/device-records/events.ts).
--
-- The invariant, after every statement: a device's rows here are the newest n of its rows in event_records and
-- dm1_event_records together, n >= least(its rows, kept), and device_read_counts.events_kept (0056) is n. Kept by
-- statement triggers in the writer's transaction, reading of a device only its counter row (its events of both
-- tables, counted by 0053's trigger first, and n) and its last row kept, as 0057 does:
-- - insert (persist, an archive restore, a stray moved back): a row goes in when the rows kept and the statement's
--   rows are all of the device's, or when it sorts before the last kept; past kept + slack, back to `kept`.
-- - delete (an organisation's month expired, a stray moved out of the default partition): the same rows go.
-- - update (persist moves a Fault <50's EventTimestamp: spec 3.4): the old rows go as a delete, then the new ones
--   come as an insert, so a row moved among or past the kept ones is where the order puts it.
-- - then a device left with fewer than least(its rows, kept) is filled again from both tables: only then are they
--   read, every partition of both (fl_events_newest_refill).
-- - a dropped partition fires no trigger: retention removes its rows here and fills again (storage/newest-rows.ts).
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

-- `set enable_seqscan = off` on these functions, as on 0057's: a plan kept from when this table was small read it whole.

-- Of `devices`, those with fewer rows kept than least(their events, kept) get their newest `kept` (those already here
-- conflict and stay); the others cost a look at their counter rows.
create function fl_events_newest_refill(devices text[]) returns void language plpgsql set enable_seqscan = off as $$
declare
  kept constant integer := fl_events_newest_kept();
  needy text[];
begin
  select array_agg(c."IMEINumber" order by c."IMEINumber") into needy from device_read_counts c
   where c."IMEINumber" = any(devices) and c.events_kept < least(c.events, kept);
  if needy is null then return; end if;
  with ins as (
    insert into device_events_newest
      select x.* from unnest(needy) d("IMEINumber") cross join lateral fl_events_newest_of(d."IMEINumber", kept) x
    on conflict do nothing
    returning "IMEINumber")
  update device_read_counts c set events_kept = c.events_kept + x.n
    from (select "IMEINumber", count(*) as n from ins group by 1) x where c."IMEINumber" = x."IMEINumber";
end $$;

-- The triggers' one function, for both tables: an insert's rows come in as `added`, a delete's go as `removed`, an
-- update's as both, the old rows first.
create function fl_events_newest_apply() returns trigger language plpgsql set enable_seqscan = off as $$
declare
  kept constant integer := fl_events_newest_kept();
  source constant text := case tg_table_name when 'event_records' then 'standard' else 'dm1' end;
  touched text[];
  over text[];
begin
  -- Persist fires this on every batch, mostly with no row of this table (0.16 ms a statement otherwise).
  if tg_op = 'DELETE' then
    if not exists (select from removed) then return null; end if;
  elsif not exists (select from added) then
    return null;
  end if;
  if tg_op = 'UPDATE' then
    perform 1 from device_read_counts c where c."IMEINumber" in (select "IMEINumber" from added) order by c."IMEINumber" for no key update;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    with gone as (
      delete from device_events_newest k using removed r
       where k."IMEINumber" = r."IMEINumber" and k."EventTimestamp" = r."EventTimestamp" and k."EventTable" = source and k."Event_Record_ID" = r."Event_Record_ID"
      returning k."IMEINumber")
    update device_read_counts c set events_kept = c.events_kept - x.n
      from (select "IMEINumber", count(*) as n from gone group by 1) x where c."IMEINumber" = x."IMEINumber";
    select array_agg(distinct "IMEINumber") into touched from removed;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    -- A row goes in when the rows kept and the statement's rows are all of the device's (`whole`), or when it sorts
    -- before the last kept. The two branches differ only in the table's own columns.
    if source = 'standard' then
      with facts as (
        select d."IMEINumber", c.events_kept + d.n = c.events as whole, t."EventTimestamp", t."EventTable", t."Event_Record_ID"
          from (select "IMEINumber", count(*) as n from added group by 1) d
          join device_read_counts c on c."IMEINumber" = d."IMEINumber"
          left join lateral (select k."EventTimestamp", k."EventTable", k."Event_Record_ID" from device_events_newest k where k."IMEINumber" = d."IMEINumber"
                              order by k."EventTimestamp", k."EventTable" desc, k."Event_Record_ID" limit 1) t on true),
      ins as (
        insert into device_events_newest
          select 'standard', a."Event_Record_ID", a."EventID", a."EventTimestamp", a."EventType", a."PrefaultCurrent", a."FaultCurrent", a."RecoverCurrent",
                 null, null, null, a."PacketTimestamp", a."IMEINumber", a."DeviceRecordID", a."ReportedEventTimestamp"
            from added a join facts f on f."IMEINumber" = a."IMEINumber"
           where f.whole or a."EventTimestamp" > f."EventTimestamp"
              or (a."EventTimestamp" = f."EventTimestamp" and ('standard' < f."EventTable" or ('standard' = f."EventTable" and a."Event_Record_ID" > f."Event_Record_ID")))
        on conflict do nothing
        returning "IMEINumber")
      update device_read_counts c set events_kept = c.events_kept + x.n
        from (select "IMEINumber", count(*) as n from ins group by 1) x where c."IMEINumber" = x."IMEINumber";
    else
      with facts as (
        select d."IMEINumber", c.events_kept + d.n = c.events as whole, t."EventTimestamp", t."EventTable", t."Event_Record_ID"
          from (select "IMEINumber", count(*) as n from added group by 1) d
          join device_read_counts c on c."IMEINumber" = d."IMEINumber"
          left join lateral (select k."EventTimestamp", k."EventTable", k."Event_Record_ID" from device_events_newest k where k."IMEINumber" = d."IMEINumber"
                              order by k."EventTimestamp", k."EventTable" desc, k."Event_Record_ID" limit 1) t on true),
      ins as (
        insert into device_events_newest
          select 'dm1', a."Event_Record_ID", a."EventID", a."EventTimestamp", a."EventType", null, null, null,
                 a."PhaseAEvent", a."PhaseBEvent", a."PhaseCEvent", a."PacketTimestamp", a."IMEINumber", a."DeviceRecordID", a."ReportedEventTimestamp"
            from added a join facts f on f."IMEINumber" = a."IMEINumber"
           where f.whole or a."EventTimestamp" > f."EventTimestamp"
              or (a."EventTimestamp" = f."EventTimestamp" and ('dm1' < f."EventTable" or ('dm1' = f."EventTable" and a."Event_Record_ID" > f."Event_Record_ID")))
        on conflict do nothing
        returning "IMEINumber")
      update device_read_counts c set events_kept = c.events_kept + x.n
        from (select "IMEINumber", count(*) as n from ins group by 1) x where c."IMEINumber" = x."IMEINumber";
    end if;
    touched := array(select distinct unnest(touched || array(select "IMEINumber" from added)));
  end if;
  perform fl_events_newest_refill(touched);
  -- Past kept + slack, back to the first `kept`.
  select array_agg(c."IMEINumber" order by c."IMEINumber") into over from device_read_counts c
   where c."IMEINumber" = any(touched) and c.events_kept > kept + fl_events_newest_slack();
  if over is not null then
    with gone as (
      delete from device_events_newest k
       using unnest(over) d("IMEINumber")
       cross join lateral (select y."EventTimestamp", y."EventTable", y."Event_Record_ID" from device_events_newest y where y."IMEINumber" = d."IMEINumber"
                            order by y."EventTimestamp" desc, y."EventTable", y."Event_Record_ID" desc offset kept) x
       where k."IMEINumber" = d."IMEINumber" and k."EventTimestamp" = x."EventTimestamp" and k."EventTable" = x."EventTable" and k."Event_Record_ID" = x."Event_Record_ID"
      returning k."IMEINumber")
    update device_read_counts c set events_kept = c.events_kept - x.n
      from (select "IMEINumber", count(*) as n from gone group by 1) x where c."IMEINumber" = x."IMEINumber";
  end if;
  return null;
end $$;

-- One table emptied: its rows go, and each device is filled again from the other.
create function fl_events_newest_truncate() returns trigger language plpgsql as $$
declare
  thinned text[];
begin
  with gone as (delete from device_events_newest where "EventTable" = case tg_table_name when 'event_records' then 'standard' else 'dm1' end returning "IMEINumber"),
  n as (select "IMEINumber", count(*) as n from gone group by 1),
  counted as (update device_read_counts c set events_kept = c.events_kept - n.n from n where c."IMEINumber" = n."IMEINumber" returning c."IMEINumber")
  select array_agg("IMEINumber") into thinned from counted;
  perform fl_events_newest_refill(thinned);
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
update device_read_counts c set events_kept = x.n
  from (select "IMEINumber", count(*) as n from device_events_newest group by 1) x where c."IMEINumber" = x."IMEINumber";
analyze device_events_newest;
