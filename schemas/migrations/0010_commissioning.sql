-- Commissioning kit (docs/decisions.md#test-faults and #dnp3-diagnostics): test faults with their delivery
-- timeline, and the DNP3 frames and requests the outstation discarded, counted per integration.

-- A stored check-in that a test fault sent carries its id; null for every real check-in. A plain ADD COLUMN,
-- so it works on a plain and on a partitioned device_records alike.
alter table device_records add column "TestFaultID" bigint;

create table test_faults (
  id                bigint generated always as identity primary key,
  "OrganizationID"  text not null references organizations,
  "IMEINumber"      text not null,
  -- The user who started it (email), or the command line.
  started_by        text not null,
  started_at        timestamptz not null default now(),
  -- The reported Ongoing_fault of the synthetic fault check-in.
  fault_code        integer not null,
  -- When the synthetic clearing check-in is due; claimed once by whichever process sends it (clear_sent_at).
  clear_due_at      timestamptz not null,
  clear_sent_at     timestamptz
);
create index test_faults_device on test_faults ("IMEINumber", id desc);
create index test_faults_clear_due on test_faults (clear_due_at) where clear_sent_at is null;

-- The timeline: one row per phase (fault, clear) and step; the first occurrence of a step wins
-- (a redelivered batch or a resent DNP3 fragment does not move it).
create table test_fault_steps (
  test_fault_id     bigint not null references test_faults on delete cascade,
  phase             text not null check (phase in ('fault', 'clear')),
  step              text not null check (step in ('queued', 'stored', 'dnp3Sent', 'dnp3Confirmed', 'omsAnswered', 'omsFailed')),
  at                timestamptz not null,
  detail            jsonb not null default '{}'::jsonb,
  primary key (test_fault_id, phase, step)
);

-- Discarded DNP3 frames and requests per integration and reason (dnp3/diagnostics/reasons.ts), written by
-- the process that runs the outstation and read by the API beside the point map.
create table dnp3_discards (
  integration_id    text not null,
  reason            text not null,
  count             bigint not null default 0,
  first_at          timestamptz not null,
  last_at           timestamptz not null,
  primary key (integration_id, reason)
);
