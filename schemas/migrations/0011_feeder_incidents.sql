-- Feeder topology and fault incidents (docs/decisions.md#feeder-incidents).

-- Topology, written by the import: the indicator directly upstream on the same power line and phase (null for
-- a feeder head), the phase the device sits on, and an optional label of the stretch of line below it.
-- Checked by the import (domain/feeder-topology.ts), not by constraints: a whole file is checked at once.
alter table device_information
  add column "UpstreamIMEI" text,
  add column "Phase" text check ("Phase" in ('A', 'B', 'C', 'ABC')),
  add column "Section" text;
create index device_information_upstream on device_information ("UpstreamIMEI") where "UpstreamIMEI" is not null;

-- Fault events waiting for the incident worker: written by a trigger in the transaction that stores the
-- event (persist), taken and deleted by the worker in the transaction that writes the incidents. So every
-- fault event is handled exactly once, whichever pipeline process stored it. Keyed like event_records.
create table incident_inbox (
  "IMEINumber"             text not null,
  "EventID"                bigint not null,
  "ReportedEventTimestamp" timestamptz not null,
  "EventTimestamp"         timestamptz not null,
  "EventType"              text not null,
  stored_at                timestamptz not null default clock_timestamp(),
  primary key ("IMEINumber", "EventID", "ReportedEventTimestamp")
);

-- The event types that trip an indicator: stages/notify FAULT_EVENT_TYPES (domain/incident-rules.ts TRIP_EVENT_TYPES).
create function incident_inbox_add() returns trigger language plpgsql as $$
begin
  insert into incident_inbox ("IMEINumber", "EventID", "ReportedEventTimestamp", "EventTimestamp", "EventType")
    values (new."IMEINumber", new."EventID", new."ReportedEventTimestamp", new."EventTimestamp", new."EventType")
    on conflict do nothing;
  perform pg_notify('incident_inbox', '');
  return null;
end $$;

create trigger event_records_incident_inbox after insert on event_records
  for each row when (new."EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL'))
  execute function incident_inbox_add();

create table incidents (
  id               bigint generated always as identity primary key,
  "OrganizationID" text not null references organizations,
  "PowerLineID"    text not null references power_lines,
  status           text not null check (status in ('open', 'located', 'restored', 'closed')),
  kind             text not null check (kind in ('momentary', 'permanent', 'unknown')),
  -- Device time of the first and last trip: the window is measured on these.
  first_trip_at    timestamptz not null,
  last_trip_at     timestamptz not null,
  -- Wall-clock times of the lifecycle.
  opened_at        timestamptz not null,
  located_at       timestamptz,
  restored_at      timestamptz,
  closed_at        timestamptz,
  -- domain/faulted-section.ts FaultedSection[]; empty until located.
  sections         jsonb not null default '[]'::jsonb,
  updated_at       timestamptz not null
);
create index incidents_org on incidents ("OrganizationID", id desc);
create index incidents_line on incidents ("PowerLineID", id desc);
create index incidents_active on incidents ("PowerLineID") where status <> 'closed';

create table incident_devices (
  incident_id      bigint not null references incidents on delete cascade,
  "IMEINumber"     text not null,
  "EventType"      text not null,
  tripped_at       timestamptz not null,
  primary key (incident_id, "IMEINumber")
);
create index incident_devices_imei on incident_devices ("IMEINumber");

create table incident_timeline (
  id               bigint generated always as identity primary key,
  incident_id      bigint not null references incidents on delete cascade,
  at               timestamptz not null,
  what             text not null,
  detail           jsonb not null default '{}'::jsonb
);
create index incident_timeline_incident on incident_timeline (incident_id, id);

-- The outstation shows per power line whether an incident is open and where (dnp3/data): a power line
-- takes a DNP3 slot like a device (never reused), so its points keep their meaning for the master.
alter table dnp3_slots alter column "IMEINumber" drop not null;
alter table dnp3_slots add column "PowerLineID" text;
alter table dnp3_slots add constraint dnp3_slots_one_owner check (("IMEINumber" is null) <> ("PowerLineID" is null));
create unique index dnp3_slots_power_line on dnp3_slots ("OrganizationID", "PowerLineID") where "PowerLineID" is not null;

create trigger incidents_dnp3_change after insert or update on incidents
  for each statement execute function dnp3_notify_change();

-- Incident notifications in the MultiSpeak outbox (an integration with notifyPer "incident").
alter table outbox drop constraint outbox_kind_check;
alter table outbox add constraint outbox_kind_check check (kind in ('checkin', 'status', 'incident'));
