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
-- - a dropped partition fires no trigger: retention removes its rows here and fills again (storage/retention.ts).
-- Two writers of one device are serialised by the counting trigger that fires before these (the names sort so:
-- `..._counted_...` < `..._newest_...`): its upsert locks the device's counter row until commit, and each statement
-- of these functions takes its snapshot after that.
-- A column added to device_currents must be added here too (test/integration/storage/newest-currents.test.ts).

create function fl_currents_newest_kept() returns integer language sql immutable as 'select 100';
create function fl_currents_newest_slack() returns integer language sql immutable as 'select 25';

create table device_currents_newest (like device_currents including defaults);
alter table device_currents_newest add primary key ("IMEINumber", "PacketTimestamp");

-- Devices whose rows here are fewer than `kept` while device_currents holds older ones: filled again with their
-- newest `kept` (those already here conflict and stay).
create function fl_currents_newest_refill(devices text[]) returns void language plpgsql as $$
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

create function fl_currents_newest_add() returns trigger language plpgsql as $$
declare
  kept constant integer := fl_currents_newest_kept();
begin
  insert into device_currents_newest
    select c.* from changed c
      -- At most kept + slack rows a device: counted whole.
      cross join lateral (select count(*) as n, min(k."PacketTimestamp") as oldest from device_currents_newest k where k."IMEINumber" = c."IMEINumber") s
     where s.n < kept or c."PacketTimestamp" > s.oldest
  on conflict do nothing;
  -- Past kept + slack, back to the newest `kept`: each such device's cut found once, then the rows at or below it.
  delete from device_currents_newest k
   using (select d."IMEINumber",
                 (select x."PacketTimestamp" from device_currents_newest x where x."IMEINumber" = d."IMEINumber"
                   order by x."PacketTimestamp" desc offset kept limit 1) as cut
            from (select distinct "IMEINumber" from changed) d
           where exists (select 1 from device_currents_newest x where x."IMEINumber" = d."IMEINumber" offset kept + fl_currents_newest_slack())) t
   where k."IMEINumber" = t."IMEINumber" and k."PacketTimestamp" <= t.cut;
  return null;
end $$;

create function fl_currents_newest_remove() returns trigger language plpgsql as $$
declare
  thinned text[];
begin
  with gone as (
    delete from device_currents_newest k using changed c
     where k."IMEINumber" = c."IMEINumber" and k."PacketTimestamp" = c."PacketTimestamp"
    returning k."IMEINumber")
  select array_agg(distinct "IMEINumber") into thinned from gone;
  if thinned is not null then perform fl_currents_newest_refill(thinned); end if;
  return null;
end $$;

create function fl_currents_newest_truncate() returns trigger language plpgsql as $$
begin
  truncate device_currents_newest;
  return null;
end $$;

-- Writers of currents wait for this migration to commit, so no row is written between the back-fill and the triggers.
lock table device_currents in share mode;

create trigger device_currents_newest_insert after insert on device_currents referencing new table as changed for each statement execute function fl_currents_newest_add();
create trigger device_currents_newest_delete after delete on device_currents referencing old table as changed for each statement execute function fl_currents_newest_remove();
create trigger device_currents_newest_truncate after truncate on device_currents for each statement execute function fl_currents_newest_truncate();

insert into device_currents_newest
  select c.* from (select distinct "IMEINumber" from device_currents) d
    cross join lateral (select * from device_currents c where c."IMEINumber" = d."IMEINumber" order by c."PacketTimestamp" desc limit fl_currents_newest_kept()) c;
analyze device_currents_newest;
