-- A device's newest currents kept by the pipeline (issue 45, docs/decisions.md#a-devices-newest-rows-kept): a
-- device's load history, unranged and in its default order, walked every partition of device_currents (a Merge
-- Append descends each month's index, so its Postgres work grew with the months stored, and with a day cut by 30x).
-- device_currents_newest holds each device's newest rows, at least the newest fl_currents_newest_kept() of them (all
-- of them when it has fewer) and at most that plus fl_currents_newest_slack(): one index range answers the first
-- pages. The API reads it only for pages inside that guarantee (api/device-records/load-history.ts).
--
-- The invariant, after every statement: a device's rows here are the newest n of its rows in device_currents (a
-- prefix in PacketTimestamp order), n >= least(its rows, kept), and device_read_counts.currents_kept (0056) is n.
-- Kept by statement triggers in the writer's own transaction, so a reader never sees it behind a committed row. All
-- a statement needs of a device is on its counter row (its currents, counted by 0053's trigger first, and n) and the
-- oldest row kept: one index descent.
-- - insert (persist, an archive restore, a stray moved back): a row goes in when the rows kept and the statement's
--   rows are all of the device's, or when it is newer than the oldest kept; past kept + slack, back to `kept`.
-- - delete (an organisation's month expired, a stray moved out of the default partition): the same rows go.
-- - update (none today): the old rows go as a delete, the new ones come as an insert.
-- - then a device left with fewer than least(its rows, kept) is filled again from device_currents: only then is
--   device_currents read, every partition of it (fl_currents_newest_refill).
-- - a dropped partition fires no trigger: retention removes its rows here and fills again (storage/newest-rows.ts).
-- Two writers of one device are serialised on its counter row: the counting trigger fires before these (the names
-- sort so: `..._counted_...` < `..._newest_...`) and its upsert locks the row until commit; an update, which nothing
-- counts, locks the rows itself. Each statement of these functions takes its snapshot after that lock.
-- Rows written to a partition by name (never done: every writer goes through the parent) bypass the triggers.
-- A column added to device_currents must be added here too (test/integration/storage/newest-currents.test.ts).

create function fl_currents_newest_kept() returns integer language sql immutable as 'select 100';
create function fl_currents_newest_slack() returns integer language sql immutable as 'select 25';

create table device_currents_newest (like device_currents including defaults);
alter table device_currents_newest add primary key ("IMEINumber", "PacketTimestamp");

-- `set enable_seqscan = off` on these functions: PL/pgSQL keeps a statement's plan for the session, and a plan made
-- while this table was empty or small (a fresh install, analysed empty) read it whole per device of every batch as it
-- grew (bench/persist-cost.ts: four times persist's Postgres CPU per check-in); each statement here has an index path,
-- which the planner now takes whatever it believes of the table's size.

-- Of `devices`, those with fewer rows kept than least(their rows, kept) get their newest `kept` (those already here
-- conflict and stay). The others cost a look at their counter rows: the statement that reads device_currents, every
-- partition of it, runs only for a device that needs it.
create function fl_currents_newest_refill(devices text[]) returns void language plpgsql set enable_seqscan = off as $$
declare
  kept constant integer := fl_currents_newest_kept();
  needy text[];
begin
  select array_agg(c."IMEINumber" order by c."IMEINumber") into needy from device_read_counts c
   where c."IMEINumber" = any(devices) and c.currents_kept < least(c.currents, kept);
  if needy is null then return; end if;
  with ins as (
    insert into device_currents_newest
      select c.* from unnest(needy) d("IMEINumber")
        cross join lateral (select * from device_currents c where c."IMEINumber" = d."IMEINumber" order by c."PacketTimestamp" desc limit kept) c
    on conflict do nothing
    returning "IMEINumber")
  update device_read_counts c set currents_kept = c.currents_kept + x.n
    from (select "IMEINumber", count(*) as n from ins group by 1) x where c."IMEINumber" = x."IMEINumber";
end $$;

-- The triggers' one function: an insert's rows come in as `added`, a delete's go as `removed`, an update's as both, the
-- old rows first.
create function fl_currents_newest_apply() returns trigger language plpgsql set enable_seqscan = off as $$
declare
  kept constant integer := fl_currents_newest_kept();
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
      delete from device_currents_newest k using removed r
       where k."IMEINumber" = r."IMEINumber" and k."PacketTimestamp" = r."PacketTimestamp"
      returning k."IMEINumber")
    update device_read_counts c set currents_kept = c.currents_kept - x.n
      from (select "IMEINumber", count(*) as n from gone group by 1) x where c."IMEINumber" = x."IMEINumber";
    select array_agg(distinct "IMEINumber") into touched from removed;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    -- A row goes in when the rows kept and the statement's rows are all of the device's (`whole`), or when it is newer
    -- than the oldest kept.
    with facts as (
      select d."IMEINumber", c.currents_kept + d.n = c.currents as whole, o."PacketTimestamp" as oldest
        from (select "IMEINumber", count(*) as n from added group by 1) d
        join device_read_counts c on c."IMEINumber" = d."IMEINumber"
        left join lateral (select k."PacketTimestamp" from device_currents_newest k where k."IMEINumber" = d."IMEINumber"
                            order by k."PacketTimestamp" limit 1) o on true),
    ins as (
      insert into device_currents_newest
        select a.* from added a join facts f on f."IMEINumber" = a."IMEINumber"
         where f.whole or a."PacketTimestamp" > f.oldest
      on conflict do nothing
      returning "IMEINumber")
    update device_read_counts c set currents_kept = c.currents_kept + x.n
      from (select "IMEINumber", count(*) as n from ins group by 1) x where c."IMEINumber" = x."IMEINumber";
    touched := array(select distinct unnest(touched || array(select "IMEINumber" from added)));
  end if;
  perform fl_currents_newest_refill(touched);
  -- Past kept + slack, back to the newest `kept`.
  select array_agg(c."IMEINumber" order by c."IMEINumber") into over from device_read_counts c
   where c."IMEINumber" = any(touched) and c.currents_kept > kept + fl_currents_newest_slack();
  if over is not null then
    with gone as (
      delete from device_currents_newest k
       using unnest(over) d("IMEINumber")
       cross join lateral (select x."PacketTimestamp" as cut from device_currents_newest x where x."IMEINumber" = d."IMEINumber"
                            order by x."PacketTimestamp" desc offset kept limit 1) c
       where k."IMEINumber" = d."IMEINumber" and k."PacketTimestamp" <= c.cut
      returning k."IMEINumber")
    update device_read_counts c set currents_kept = c.currents_kept - x.n
      from (select "IMEINumber", count(*) as n from gone group by 1) x where c."IMEINumber" = x."IMEINumber";
  end if;
  return null;
end $$;

create function fl_currents_newest_truncate() returns trigger language plpgsql as $$
begin
  truncate device_currents_newest;
  update device_read_counts set currents_kept = 0 where currents_kept <> 0;
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
update device_read_counts c set currents_kept = x.n
  from (select "IMEINumber", count(*) as n from device_currents_newest group by 1) x where c."IMEINumber" = x."IMEINumber";
analyze device_currents_newest;
