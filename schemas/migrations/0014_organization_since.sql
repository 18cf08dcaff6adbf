-- When a device joined its current organisation (docs/decisions.md#reach-applied-once): an organisation reads
-- a device's records from this instant on, so a device moved to another organisation does not bring its
-- earlier history along. '-infinity' (every existing row, and a device's first registration) shows the
-- whole history: nothing changes for a device that never moved. The import sets it when OrganizationID changes.
alter table device_information add column "OrganizationSince" timestamptz not null default '-infinity';
-- The moved devices of an organisation, read before each record list (api/device-records/reach.ts).
create index device_information_moved on device_information ("OrganizationID") where "OrganizationSince" > '-infinity';
