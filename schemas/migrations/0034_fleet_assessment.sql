-- Fleet health assessment (issue 44 points 2-5; docs/decisions.md#fleet-health-assessment): what the fleet worker
-- (fleet/worker.ts) last concluded about each device from its daily rollup (device_health_days, migration 0033)
-- and the reference data, so the fleet API and the digest read one row per device, never a history. One table per
-- question, each written by its own step of the worker; none holds an organisation: readers join `devices`
-- through the one reach rule, as for device_health_days.

-- Online rates, signal and battery (fleet/assess.ts).
create table device_health (
  "IMEINumber"       text primary key,
  assessed_at        timestamptz not null,
  -- Days with a rollup row among the last 30 (the forecast says "not enough data" under 14).
  history_days       integer not null check (history_days >= 0),
  expected_7d        integer not null check (expected_7d >= 0),
  received_7d        integer not null check (received_7d >= 0),
  expected_30d       integer not null check (expected_30d >= 0),
  received_30d       integer not null check (received_30d >= 0),
  rssi_median_7d     double precision,
  -- dB per day: least-squares slope of the daily RSSI medians of the last 30 days.
  rssi_slope_30d     double precision,
  signal             text not null check (signal in ('ok', 'weak', 'falling', 'unknown')),
  battery_status     text not null check (battery_status in ('ok', 'ends_soon', 'not_enough_data', 'flat', 'line_powered', 'exhausted')),
  battery_end_day    date,
  battery_days_left  integer,
  -- What the forecast read (consumption per day, budget, voltage trend): shown beside the figure.
  battery_evidence   jsonb not null default '{}',
  firmware           text,
  model              text
);
create index device_health_battery on device_health (battery_end_day) where battery_end_day is not null;

-- Why each silent device is silent (fleet triage): one label with its evidence. A device that checks in again
-- loses its row at the next assessment.
create table device_silence (
  "IMEINumber"   text primary key,
  -- Its last check-in; null for a device never commissioned.
  silent_since   timestamptz,
  label          text not null check (label in ('never_commissioned', 'battery_exhausted', 'signal_decline', 'cluster', 'deenergised', 'unknown')),
  evidence       jsonb not null,
  -- The cluster or section the device was judged with (label cluster or deenergised), else null.
  group_key      text,
  assessed_at    timestamptz not null
);
create index device_silence_label on device_silence (label);

-- Reported settings and firmware that differ from the device's group profile (settings drift): one row per
-- device and setting, with the day the reported value first differed.
create table device_drift (
  "IMEINumber"   text not null,
  setting        text not null,
  expected       text,
  reported       text,
  since_day      date not null,
  assessed_at    timestamptz not null,
  primary key ("IMEINumber", setting)
);
