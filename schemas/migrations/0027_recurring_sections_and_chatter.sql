-- Issue 43 points 2 and 5 (docs/decisions.md#hot-spots-and-chattering-alarms): the recurring-section alarm and
-- chattering alarms collapsed into one row.

-- Per organisation, like MaskFaultDetails and timezone (written by `faultline import`): a section is a hot spot
-- after this many incidents within this many days. Null: the defaults of domain/recurring-section.ts (3 in 30).
alter table organizations
  add column "RecurringSectionIncidents" integer check ("RecurringSectionIncidents" between 2 and 1000),
  add column "RecurringSectionDays" integer check ("RecurringSectionDays" between 1 and 366);

-- The hot-spot count reads one power line's incidents of the last D days by device time of the first trip:
-- a range of this index, never a scan of the history.
create index incidents_line_first_trip on incidents ("PowerLineID", first_trip_at);

-- A chattering alarm (ISA-18.2): a raise of a device and kind shortly after its last episode cleared, still
-- unacknowledged, reopens that row instead of inserting a new one (alarms/raise.ts). `chatter_count` counts
-- its episodes, `last_raised_at` and `last_episode` are those of the newest (null: the row's own).
alter table alarms
  add column chatter_count integer not null default 1 check (chatter_count >= 1),
  add column last_raised_at timestamptz,
  add column last_episode text;

-- The incident worker re-judges every active recurring-section alarm each step: a range of this small index.
create index alarms_active_kind on alarms (kind, "OrganizationID") where cleared_at is null;
