-- Partitions sized for the fleet (docs/decisions.md#partition-granularity, docs/operations.md#sizing): a month
-- of the device-data tables may be cut into one partition (month), four (week: days 1-7, 8-14, 15-21, 22-end)
-- or one per day. Every cut nests inside its UTC month, so the month stays the unit of retention and of an
-- archive file (storage/retention.ts), whatever the cut: a month expires and goes whole, as before.
--
-- The cut in force is recorded here (the service writes PARTITION_GRANULARITY at start, storage/maintenance.ts),
-- so every caller of fl_ensure_month (persist, archive restore, maintenance) cuts new months alike. Partitions
-- that exist are never re-cut: a change applies to months not yet created, and a month partly covered (a cut
-- changed while some of its partitions existed) has only its gaps filled, so ranges never overlap.
create table storage_partition_cut (
  one         boolean primary key default true check (one),
  granularity text not null check (granularity in ('month', 'week', 'day')),
  changed_at  timestamptz not null default now()
);
insert into storage_partition_cut (granularity) values ('month');

-- Every time partition of every table with its range, read from the catalog (the one source of the bounds;
-- the printed bound carries its offset, so the cast is exact in any session time zone).
create function fl_time_partitions() returns table (parent text, partition text, lo timestamptz, hi timestamptz) language sql stable as $$
  select p.relname::text, c.relname::text, b.bounds[1]::timestamptz, b.bounds[2]::timestamptz
    from storage_partitioned_tables t
    join pg_class p on p.relname = t.table_name and p.relnamespace = 'public'::regnamespace
    join pg_inherits i on i.inhparent = p.oid
    join pg_class c on c.oid = i.inhrelid
    cross join lateral regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']+)''\) TO \(''([^'']+)''\)') as b(bounds)
   where b.bounds is not null
$$;

-- A partition is named by its range: <table>_pYYYYMM for a whole month (as before), else <table>_pYYYYMMDD
-- for the day it starts. Two partitions never share a start, so never a name.
drop function fl_partition_name(text, date);
create function fl_partition_name(parent text, lo timestamptz, hi timestamptz) returns text language sql immutable as $$
  select parent || '_p' || case
    when date_trunc('month', lo at time zone 'UTC') = lo at time zone 'UTC' and hi at time zone 'UTC' = (lo at time zone 'UTC') + interval '1 month'
      then to_char(lo at time zone 'UTC', 'YYYYMM')
    else to_char(lo at time zone 'UTC', 'YYYYMMDD') end
$$;

-- The ranges `cut` makes of the month starting at `month`.
create function fl_month_cut(month date, cut text) returns table (lo timestamptz, hi timestamptz) language sql immutable as $$
  select s::timestamp at time zone 'UTC',
         (case when cut = 'week' and extract(day from s) = 22 then month + interval '1 month'
               else least(s + step, month + interval '1 month') end)::timestamp at time zone 'UTC'
    from (select case cut when 'day' then interval '1 day' when 'week' then interval '7 days' else interval '1 month' end as step) k
    cross join lateral generate_series(month::timestamp, month + interval '1 month' - interval '1 day', step) s
   -- week: the days from the 29th belong to the fourth piece (22-end), so a month has four.
   where not (cut = 'week' and extract(day from s) > 22)
$$;

-- Creates the partitions of `month` (any day of it) that are missing, cut by `cut` (null: the recorded cut),
-- filling only the gaps between partitions that exist; returns how many it created. Rows the default partition
-- holds for a new range move into it first (PostgreSQL refuses a partition whose rows sit in the default one).
-- Concurrent callers serialise on an advisory lock per month; one call is one transaction: a kill leaves the
-- month as it was or done.
drop function fl_ensure_month(date);
create function fl_ensure_month(month_in date, cut text default null) returns integer language plpgsql as $$
declare
  month date := date_trunc('month', month_in)::date;
  month_lo timestamptz := month::timestamp at time zone 'UTC';
  month_hi timestamptz := (month + interval '1 month')::timestamp at time zone 'UTC';
  t record;
  piece record;
  gap record;
  made integer := 0;
  strays boolean;
  part text;
begin
  cut := coalesce(cut, (select granularity from storage_partition_cut));
  if cut not in ('month', 'week', 'day') then
    raise exception 'fl_ensure_month: cut %: not month, week or day', cut;
  end if;
  -- Fast path: every table's month already covered in full.
  if not exists (
    select 1 from storage_partitioned_tables s
     where coalesce((select sum(extract(epoch from least(p.hi, month_hi) - greatest(p.lo, month_lo)))
                       from fl_time_partitions() p where p.parent = s.table_name and p.lo < month_hi and p.hi > month_lo), 0)
           < extract(epoch from month_hi - month_lo)) then
    return 0;
  end if;
  perform pg_advisory_xact_lock(hashtext('fl_partition_month'), (extract(year from month) * 100 + extract(month from month))::int);
  for t in select table_name, time_column from storage_partitioned_tables order by table_name loop
    for piece in select * from fl_month_cut(month, cut) loop
      -- The parts of this piece no existing partition covers (none, all of it, or what a coarser or finer
      -- earlier cut left): each becomes one partition.
      for gap in
        with taken as (
          select greatest(p.lo, piece.lo) as lo, least(p.hi, piece.hi) as hi
            from fl_time_partitions() p where p.parent = t.table_name and p.lo < piece.hi and p.hi > piece.lo),
        edges as (
          select piece.lo as lo, coalesce((select min(lo) from taken where lo >= piece.lo), piece.hi) as hi
          union all
          select a.hi, coalesce((select min(b.lo) from taken b where b.lo >= a.hi), piece.hi) from taken a)
        select lo, hi from edges where lo < hi
      loop
        part := fl_partition_name(t.table_name, gap.lo, gap.hi);
        execute format('select exists (select 1 from %I where %I >= $1 and %I < $2)', t.table_name || '_default', t.time_column, t.time_column)
          into strays using gap.lo, gap.hi;
        if strays then
          -- Through the parent, so the counters' statement triggers see the delete and the insert (net zero).
          execute format('create temp table fl_strays on commit drop as select * from %I where %I >= $1 and %I < $2', t.table_name, t.time_column, t.time_column) using gap.lo, gap.hi;
          execute format('delete from %I where %I >= $1 and %I < $2', t.table_name, t.time_column, t.time_column) using gap.lo, gap.hi;
        end if;
        execute format('create table %I partition of %I for values from (%L) to (%L)', part, t.table_name, gap.lo, gap.hi);
        if strays then
          execute format('insert into %I overriding system value select * from fl_strays', t.table_name);
          drop table fl_strays;
        end if;
        made := made + 1;
      end loop;
    end loop;
  end loop;
  return made;
end $$;
