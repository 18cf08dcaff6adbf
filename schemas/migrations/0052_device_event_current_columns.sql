-- The columns migration 0053 counts a device's events and currents in (issue 45,
-- docs/decisions.md#a-devices-lists-total-from-its-counters). A migration of their own: the ALTER holds
-- device_read_counts in access exclusive mode until its transaction commits, and in 0053's transaction it held
-- every read of the counters (a device's lists, the organisation's list totals) and every check-in writer for the
-- whole backfill. Constant defaults: no rewrite, so this commits at once.
alter table device_read_counts add column events bigint not null default 0, add column currents bigint not null default 0;
