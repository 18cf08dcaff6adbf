-- Strays moved without losing one (docs/decisions.md#partition-granularity): fl_ensure_month (migration 0049)
-- copied a new range's rows out of the default partition, then deleted that range from it, in two statements. A
-- writer's row committed into the default partition between them (a late row of a month retention dropped, while
-- maintenance or an archive restore makes the month again) was in the delete and not in the copy: gone, and
-- uncounted by the delete's trigger. The delete now returns the rows it moves. Otherwise as in 0049.
create or replace function fl_ensure_month(month_in date, cut text default null) returns integer language plpgsql as $$
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
          -- One statement deletes the strays and keeps what it deleted: copied first and deleted second, a row a
          -- writer committed between the two was deleted and never put back.
          execute format('create temp table fl_strays on commit drop as select * from %I where false', t.table_name);
          execute format('with moved as (delete from %I where %I >= $1 and %I < $2 returning *) insert into fl_strays select * from moved',
                         t.table_name, t.time_column, t.time_column) using gap.lo, gap.hi;
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
