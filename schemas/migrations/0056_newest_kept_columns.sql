-- How many of a device's newest currents and events migrations 0057 and 0058 keep beside the history
-- (docs/decisions.md#a-devices-newest-rows-kept), beside the counts of all of them: their triggers read and keep these
-- on every persist batch instead of counting the kept rows (a count read a heap page per row kept, as the kept tables'
-- pages change on every insert and are seldom all-visible: the review's finding). A migration of their own, as 0052's:
-- the ALTER holds device_read_counts in access exclusive mode until its transaction commits. Constant defaults: no
-- rewrite, so this commits at once.
alter table device_read_counts add column currents_kept integer not null default 0, add column events_kept integer not null default 0;
