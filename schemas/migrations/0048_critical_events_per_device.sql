-- Critical data walked per device (issue 45, docs/decisions.md#critical-data-walked-per-device): a group user's
-- page of critical data (api/device-records/critical-data.ts, walk `by device`) reads, for each device in reach,
-- that device's fault events newest first and stops at the page. Partial on the fault types as the statement
-- spells them (domain/fault-events.ts), so a device's other events (heartbeats, resets) are never stepped over;
-- the partition key and the check-in's instant carried, as in 0042, for the range's and a moved device's
-- conditions. On the partitioned parents, so every month has it (fl_ensure_month's new months too).
create index event_records_critical_imei on event_records ("IMEINumber", "EventTimestamp" desc, "Event_Record_ID" desc)
  include ("ReportedEventTimestamp", "PacketTimestamp")
  where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL');
create index dm1_event_records_critical_imei on dm1_event_records ("IMEINumber", "EventTimestamp" desc, "Event_Record_ID" desc)
  include ("ReportedEventTimestamp", "PacketTimestamp")
  where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL');
-- Model-change alerts per device in the list's order with its tie-breaker (at desc, id desc), so the walk
-- needs no sort of a device's alerts; replaces the index on (IMEINumber, at desc) of migration 0004.
create index model_change_alerts_imei_at_id on model_change_alerts ("IMEINumber", "at" desc, id desc);
drop index if exists model_change_alerts_imei;
