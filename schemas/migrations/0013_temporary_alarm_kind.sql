-- Code 11 (Probable Temp Fault) belongs to the temporary class (docs/decisions.md#fault-facts), so its alarms
-- are of kind `temporary`, as DNP3's temporary-fault binary always read it. Stored rules and alarms of the
-- retired kind `probable-temporary` become `temporary`: a rule keeps alerting, an open alarm keeps clearing.
update alarm_rules
   set kinds = array(select distinct case k when 'probable-temporary' then 'temporary' else k end from unnest(kinds) k),
       updated_at = now()
 where 'probable-temporary' = any(kinds);

-- An episode is one raising check-in, which raises one kind, so a renamed alarm cannot meet a `temporary`
-- one of the same episode; the guard keeps the migration safe should it ever.
update alarms a set kind = 'temporary'
 where kind = 'probable-temporary'
   and not exists (select 1 from alarms b where b."IMEINumber" = a."IMEINumber" and b.kind = 'temporary' and b.episode = a.episode)
   and not (a.cleared_at is null and exists (select 1 from alarms c where c."IMEINumber" = a."IMEINumber" and c.kind = 'temporary' and c.cleared_at is null));
update alarms set cleared_at = coalesce(cleared_at, now()) where kind = 'probable-temporary';
