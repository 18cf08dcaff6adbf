-- Possible de-energised sections (issue 44 point 4; docs/decisions.md#silent-device-triage): line-powered
-- indicators silent together below one topology point with no trip. Opened and closed by silent-device triage
-- (fleet-health/triage.ts, fleet/silence-triage.ts), one row per section and opening. A table of its own, not a
-- kind of `incidents`: every reader of `incidents` (the incident step, DNP3 and IEC 104 line points, OMS
-- outage notifications, reliability days, hot spots, the indicator audit) means a fault, and none of them
-- can mix this in by accident.
create table deenergised_sections (
  id               bigint generated always as identity primary key,
  "OrganizationID" text not null references organizations,
  "PowerLineID"    text not null references power_lines,
  -- The topology point: the top indicator of the silent subtree; the indicator directly above it still reports
  -- (null: the feeder head itself went quiet).
  point_imei       text not null,
  upstream_imei    text,
  phase            text not null check (phase in ('A', 'B', 'C', 'ABC')),
  -- The point's Section label, else "below <upstream>".
  label            text not null,
  -- The line-powered indicators silent below the point: [{imei, name, silentSince}], as last assessed.
  devices          jsonb not null,
  -- The earliest last check-in of those indicators.
  silent_since     timestamptz not null,
  status           text not null check (status in ('open', 'closed')),
  opened_at        timestamptz not null,
  updated_at       timestamptz not null,
  closed_at        timestamptz,
  -- Why it closed: its indicators report again, it became part of a wider section, or it no longer reads so.
  closed_reason    text,
  check ((status = 'closed') = (closed_at is not null))
);
-- At most one open per section (power line and point).
create unique index deenergised_sections_one_open on deenergised_sections ("PowerLineID", point_imei) where status = 'open';
create index deenergised_sections_org on deenergised_sections ("OrganizationID", id desc);
