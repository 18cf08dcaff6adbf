-- The board (docs/decisions.md#the-board): shelving of maintenance alarms, and a read path for the alarms that
-- are not yet normal.

-- A shelved alarm point (a device and an alarm kind), hidden from the board until `until`: the shelving ends
-- by itself (every reader compares `until` with now), and an alarm of that point raised meanwhile stays hidden
-- too, as ISA-18.2 shelves a point rather than one occurrence. Unshelving deletes the row.
create table alarm_shelves (
  "OrganizationID" text not null references organizations,
  "IMEINumber"     text not null,
  kind             text not null,
  until            timestamptz not null,
  shelved_by       text not null,
  shelved_at       timestamptz not null,
  primary key ("IMEINumber", kind)
);
create index alarm_shelves_org on alarm_shelves ("OrganizationID", until);

-- The board reads every alarm that is not normal (unacknowledged, or acknowledged and still active).
create index alarms_not_normal on alarms ("OrganizationID", raised_at desc) where acknowledged_at is null or cleared_at is null;
