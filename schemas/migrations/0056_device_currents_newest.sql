-- A device's newest currents kept by the pipeline (issue 45, docs/decisions.md#a-devices-newest-rows-kept): a
-- device's load history, unranged and in its default order, walked every partition of device_currents (a Merge
-- Append descends each month's index, so its Postgres work grew with the months stored, and with a day cut by 30x).
-- device_currents_newest holds each device's newest rows, at least the newest fl_currents_newest_kept() of them (all
-- of them when it has fewer) and at most that plus fl_currents_newest_slack(): one index range answers the first
-- pages. The API reads it only for pages inside that guarantee (api/device-records/load-history.ts).
--
-- The invariant, after every statement: a device's rows here are the newest n of its rows in device_currents (a
-- prefix in PacketTimestamp order), with n >= least(its rows, kept). Kept by statement triggers in the writer's own
-- transaction, so a reader never sees it behind a committed row:
-- - insert (persist, an archive restore, a stray moved back): a row goes in when the device has fewer than `kept`
--   here (so this holds all of its rows) or when it is newer than the oldest kept; past kept + slack, the oldest are
--   trimmed back to `kept`.
-- - delete (an organisation's month expired, a stray moved out of the default partition): the same rows go; a device
--   left with fewer than `kept` here while older rows remain in device_currents is filled again from them.
-- - update (none today): the old rows go as a delete, then the new ones come as an insert.
-- - a dropped partition fires no trigger: retention removes its rows here and fills again (storage/retention.ts).
-- Two writers of one device are serialised by the counting trigger that fires before these (the names sort so:
-- `..._counted_...` < `..._newest_...`): its upsert locks the device's counter row until commit, and each statement
-- of these functions takes its snapshot after that; an update, which nothing counts, locks the rows itself.
-- Rows written to a partition by name (never done: every writer goes through the parent) bypass the triggers.
-- A column added to device_currents must be added here too (test/integration/storage/newest-currents.test.ts).

create function fl_currents_newest_kept() returns integer language sql immutable as 'select 100';
create function fl_currents_newest_slack() returns integer language sql immutable as 'select 25';

create table device_currents_newest (like device_currents including defaults);
alter table device_currents_newest add primary key ("IMEINumber", "PacketTimestamp");

-- `set enable_seqscan = off` on these functions: PL/pgSQL keeps a statement's plan for the session, and a plan made
-- while this table was empty or small (a fresh install, analysed empty) read it whole per device of every batch as it
-- grew, 0.4 ms a device (bench/persist-cost.ts: four times persist's Postgres CPU per check-in); each statement here
-- has an index path, which the planner now takes whatever it believes of the table's size.
-- Devices whose rows here are fewer than `kept` while device_currents holds older ones: filled again with their
-- newest `kept` (those already here conflict and stay).
create function fl_currents_newest_refill(devices text[]) returns void language plpgsql set enable_seqscan = off as $$
declare
  kept constant integer := fl_currents_newest_kept();
begin
  insert into device_currents_newest
    select c.* from (select distinct unnest(devices) as "IMEINumber") d
      cross join lateral (select count(*) as n, min(k."PacketTimestamp") as oldest from device_currents_newest k where k."IMEINumber" = d."IMEINumber") s
      cross join lateral (select * from device_currents c where c."IMEINumber" = d."IMEINumber" order by c."PacketTimestamp" desc limit kept) c
     where s.n < kept
       and exists (select 1 from device_currents o where o."IMEINumber" = d."IMEINumber" and (s.oldest is null or o."PacketTimestamp" < s.oldest))
  on conflict do nothing;
end $$;

-- The triggers' one function: an insert's rows come in as `added`, a delete's go as `removed`, an update's (nothing
-- updates currents today) as both, the old rows first. The per-device facts (rows kept, the oldest) are read once
-- per device of the statement, and the trim walks only the devices past kept + slack (a join over the whole table,
-- planned for the few hundred devices a batch brings, read it whole and ran the cut per row: the review's finding).
create function fl_currents_newest_apply() returns trigger language plpgsql set enable_seqscan = off as $$
declare
  kept constant integer := fl_currents_newest_kept();
  thinned text[];
  over text[];
begin
  if tg_op = 'UPDATE' then
    perform 1 from device_read_counts c where c."IMEINumber" in (select "IMEINumber" from added) order by c."IMEINumber" for update;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    with gone as (
      delete from device_currents_newest k using removed r
       where k."IMEINumber" = r."IMEINumber" and k."PacketTimestamp" = r."PacketTimestamp"
      returning k."IMEINumber")
    select array_agg(distinct "IMEINumber") into thinned from gone;
    if thinned is not null then perform fl_currents_newest_refill(thinned); end if;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    -- A row goes in when its device has fewer than `kept` here (all of its rows are), or when it is newer than the oldest kept.
    insert into device_currents_newest
      select a.* from added a
        join (select d."IMEINumber", s.n, s.oldest from (select distinct "IMEINumber" from added) d
                cross join lateral (select count(*) as n, min(k."PacketTimestamp") as oldest from device_currents_newest k where k."IMEINumber" = d."IMEINumber") s) s
          on s."IMEINumber" = a."IMEINumber"
       where s.n < kept or a."PacketTimestamp" > s.oldest
    on conflict do nothing;
    -- Past kept + slack, back to the newest `kept`.
    select array_agg(d."IMEINumber") into over from (select distinct "IMEINumber" from added) d
     where exists (select 1 from device_currents_newest x where x."IMEINumber" = d."IMEINumber" offset kept + fl_currents_newest_slack());
    if over is not null then
      delete from device_currents_newest k
       using unnest(over) d("IMEINumber")
       cross join lateral (select x."PacketTimestamp" as cut from device_currents_newest x where x."IMEINumber" = d."IMEINumber"
                            order by x."PacketTimestamp" desc offset kept limit 1) c
       where k."IMEINumber" = d."IMEINumber" and k."PacketTimestamp" <= c.cut;
    end if;
  end if;
  return null;
end $$;

create function fl_currents_newest_truncate() returns trigger language plpgsql as $$
begin
  truncate device_currents_newest;
  return null;
end $$;

-- Writers of currents wait for this migration to commit, so no row is written between the back-fill and the triggers.
lock table device_currents in share mode;

create trigger device_currents_newest_insert after insert on device_currents referencing new table as added for each statement execute function fl_currents_newest_apply();
create trigger device_currents_newest_update after update on device_currents referencing old table as removed new table as added for each statement execute function fl_currents_newest_apply();
create trigger device_currents_newest_delete after delete on device_currents referencing old table as removed for each statement execute function fl_currents_newest_apply();
create trigger device_currents_newest_truncate after truncate on device_currents for each statement execute function fl_currents_newest_truncate();

insert into device_currents_newest
  select c.* from (select distinct "IMEINumber" from device_currents) d
    cross join lateral (select * from device_currents c where c."IMEINumber" = d."IMEINumber" order by c."PacketTimestamp" desc limit fl_currents_newest_kept()) c;
analyze device_currents_newest;
