-- The incident inbox is filled once per INSERT statement instead of once per fault event row
-- (docs/decisions.md#postgres-cost-per-check-in): persist stores ~1,500 events per batch, and the row trigger
-- ran an INSERT and a pg_notify for each fault event, about a fifth of Postgres's time per check-in. Same rows,
-- same transaction, same channel (notifications of one transaction collapse into one anyway).
drop trigger event_records_incident_inbox on event_records;

create or replace function incident_inbox_add() returns trigger language plpgsql as $$
begin
  -- The event types that trip an indicator: stages/notify FAULT_EVENT_TYPES (domain/incident-rules.ts TRIP_EVENT_TYPES).
  insert into incident_inbox ("IMEINumber", "EventID", "ReportedEventTimestamp", "EventTimestamp", "EventType")
    select "IMEINumber", "EventID", "ReportedEventTimestamp", "EventTimestamp", "EventType" from changed
     where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL')
     order by 1, 2, 3
    on conflict do nothing;
  if found then perform pg_notify('incident_inbox', ''); end if;
  return null;
end $$;

create trigger event_records_incident_inbox after insert on event_records
  referencing new table as changed for each statement execute function incident_inbox_add();
