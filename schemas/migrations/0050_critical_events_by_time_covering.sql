-- Critical data walked by time, index-only (issue 45, docs/decisions.md#critical-data-keys-first-by-time): a page
-- of critical data walked by time (api/device-records/critical-data.ts) reads each source's fault events newest
-- first and keeps those of devices in the caller's reach. When few of a week's events are in reach (a group
-- without DM1 indicators that week) the walk reads the whole week, each event's row fetched from the heap only to
-- learn its device: 15,634 DM1 events, 39 ms at 20M check-ins. This index carries the device, the partition key
-- and the check-in's instant, so the walk is index-only; the rows of the page alone are read afterwards. It
-- replaces the index of migrations 0004 and 0008 on the same keys without them. On the partitioned parents, so
-- every month has it (fl_ensure_month's new months too).
create index event_records_critical_time on event_records ("EventTimestamp" desc, "Event_Record_ID" desc)
  include ("IMEINumber", "ReportedEventTimestamp", "PacketTimestamp")
  where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL');
create index dm1_event_records_critical_time on dm1_event_records ("EventTimestamp" desc, "Event_Record_ID" desc)
  include ("IMEINumber", "ReportedEventTimestamp", "PacketTimestamp")
  where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL');
drop index if exists event_records_critical;
drop index if exists dm1_event_records_critical;
