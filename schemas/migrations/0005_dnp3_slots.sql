-- DNP3 point slots (docs/decisions.md#dnp3-outstation): each device of an organisation gets a slot when it
-- first appears, never reused, so binary 8*s+k and analog 1+8*s+k keep meaning the same device for the
-- SCADA master's configuration. A device that moves organisation gets a new slot there; its old one stays.
create table dnp3_slots (
  "OrganizationID"  text not null references organizations,
  slot              integer not null check (slot >= 0),
  "IMEINumber"      text not null,
  assigned_at       timestamptz not null default now(),
  primary key ("OrganizationID", slot),
  unique ("OrganizationID", "IMEINumber")
);

-- Stored check-ins and events wake the outstation feed (LISTEN dnp3_change) so a change reaches the event
-- buffer within a second. Statement-level: one notification per COPY batch, not one per row; the feed reads
-- what is new by identity watermark, so the payload carries nothing.
create function dnp3_notify_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('dnp3_change', '');
  return null;
end $$;

create trigger device_records_dnp3_change after insert on device_records
  for each statement execute function dnp3_notify_change();
create trigger event_records_dnp3_change after insert on event_records
  for each statement execute function dnp3_notify_change();
