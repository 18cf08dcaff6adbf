-- notify commits a record's Postgres effects before it produces its DNP3 feed record, so a transaction that
-- fails cannot leave a feed record produced for effects never committed (and produced again at the retry).
-- `applied_at` set: the outbox rows, test-fault marks and alarms are committed; the row stays until its DNP3
-- feed record is produced, then it is deleted (docs/decisions.md#effects-exactly-once-sweep-feed-chunks).
alter table pending_effects add column applied_at timestamptz;

-- The sweep (rows owed longer than NOTIFY_SWEEP_AFTER_SECONDS) reads them by age.
create index pending_effects_age on pending_effects (created_at);
