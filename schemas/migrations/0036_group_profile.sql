-- Group profile (issue 44 point 5; docs/decisions.md#settings-drift): the firmware and reset settings a group's
-- devices are expected to report, optional columns of the import's group row (null: that setting is not
-- checked). The fleet worker's drift step (fleet-health/drift.ts) compares each device's reported settings
-- (device_health_days) with them and writes device_drift (migration 0034). The names and types follow the
-- fields the device reports (device_records), so a value compares as it is stored; fleet/settings-drift.ts
-- lists which column answers which reported field.
alter table groups
  add column "FirmwareVersion"       text,
  add column "Tempfault_Reset_Hours" text,
  add column "Permfault_Reset_Hours" double precision,
  add column "Current_Reset"         text,
  add column "Block_Reset"           double precision;

-- The drift step replaces a device's rows; the fleet API lists drifting devices by setting.
create index device_drift_setting on device_drift (setting);
