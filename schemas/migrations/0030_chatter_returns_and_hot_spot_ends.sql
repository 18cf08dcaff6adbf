-- Review findings on hot spots and chattering alarms (docs/decisions.md#hot-spots-and-chattering-alarms).

-- A shelving taken only because the alarm chatters (an operations alarm may not be shelved otherwise): the row it
-- was taken for. A new row of the same device and kind (a new fault, not one more episode of that row) lifts
-- it (alarms/raise.ts); null: a shelving of a maintenance point, which holds for its time whatever is raised.
alter table alarm_shelves add column chatter_alarm_id bigint;

-- When an open recurring-section alarm can next end by time alone (the moment its N-th newest counted incident
-- leaves the window, incidents/recurring-section.ts): the incident step judges only the alarms due. Null: judge
-- at the next step (rows from before this migration, and after an organisation's rule changed).
alter table alarms add column next_end_at timestamptz;
create index alarms_hot_spot_due on alarms (next_end_at) where cleared_at is null and kind = 'recurring-section';

-- An organisation's rule (N, D) or its masking (what counts) changed: its open hot spots are judged anew at the
-- next step, whoever changed the row (`faultline import`, an admin's SQL).
create function hot_spot_rule_changed() returns trigger language plpgsql as $$
begin
  update alarms set next_end_at = null
   where "OrganizationID" = new."OrganizationID" and kind = 'recurring-section' and cleared_at is null;
  return null;
end $$;

create trigger hot_spot_rule_changed after update of "RecurringSectionIncidents", "RecurringSectionDays", "MaskFaultDetails" on organizations
  for each row when (old."RecurringSectionIncidents" is distinct from new."RecurringSectionIncidents"
                  or old."RecurringSectionDays" is distinct from new."RecurringSectionDays"
                  or old."MaskFaultDetails" is distinct from new."MaskFaultDetails")
  execute function hot_spot_rule_changed();
