-- What migrations 0057 and 0058 (a device's newest currents and events kept beside the history) need first. How many
-- of a device's newest currents and events they keep
-- (docs/decisions.md#a-devices-newest-rows-kept), beside the counts of all of them: their triggers read and keep these
-- on every persist batch instead of counting the kept rows (a count read a heap page per row kept, as the kept tables'
-- pages change on every insert and are seldom all-visible: the review's finding). A migration of their own, as 0052's:
-- the ALTER holds device_read_counts in access exclusive mode until its transaction commits. Constant defaults: no
-- rewrite, so this commits at once.
alter table device_read_counts add column currents_kept integer not null default 0, add column events_kept integer not null default 0;

-- The spans of time no partition of `parent` covers (before the first, between two, after the last): rows there are
-- in its default partition. storage/newest-rows.ts sweepNewest looks there for kept rows whose month was dropped.
create function fl_partition_gaps(parent text) returns table (lo timestamptz, hi timestamptz) language sql stable as $$
  with parts as (select t.lo, t.hi from fl_time_partitions() t where t.parent = fl_partition_gaps.parent),
  edges as (select p.lo, lag(p.hi) over (order by p.lo) as before from parts p)
  select '-infinity'::timestamptz, coalesce((select min(p.lo) from parts p), 'infinity')
  union all select e.before, e.lo from edges e where e.before < e.lo
  union all select max(p.hi), 'infinity' from parts p having count(*) > 0
$$;
