-- faultline: no transaction
-- Review M6 (docs/decisions.md#reliability-reads-paged-and-bounded): the organisation's incidents in first trip order.
-- The export of a window walks it from the window's start (api/reliability/export.ts, keyset on first trip and
-- id) and the newest incidents of the reliability sections list walk it backwards (api/reliability/store.ts):
-- both read what they answer, not the organisation's history.
-- Built CONCURRENTLY on a live table: the incident worker keeps writing while it builds. So this file runs
-- outside a transaction (db/migrate.ts), one statement at a time; a build cut short leaves an invalid index,
-- which the first statement drops when the migration is run again.
drop index concurrently if exists incidents_org_first_trip;
create index concurrently incidents_org_first_trip on incidents ("OrganizationID", first_trip_at, id);
