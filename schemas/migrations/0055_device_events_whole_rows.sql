-- A device's first page of events read whole from one index (issue 45, docs/decisions.md#a-devices-events-read-whole):
-- migration 0042's index held the walk's keys only, so the first page walked the device's keys in every month of
-- both tables and then looked each of the page's rows up by key in its own partition: a plan over every partition
-- twice (bind 0.7 ms, execute 0.6-0.8 ms at 1M check-ins, 24 months). This one carries every column the events
-- list presents and filters on, so the walk itself is index-only and hands out whole rows; the lookup goes. Its
-- keys and the columns 0042 carried for the device's count are the same, so it replaces 0042's.
--
-- Both builds first, every drop last: a DROP INDEX locks its table against reads until the migration commits, so
-- dropping event_records' indexes before building dm1_event_records' would hold every read of events for that build.
create index event_records_device_rows on event_records ("IMEINumber", "EventTimestamp" desc, "Event_Record_ID" desc)
  include ("ReportedEventTimestamp", "PacketTimestamp", "EventID", "EventType", "PrefaultCurrent", "FaultCurrent", "RecoverCurrent", "DeviceRecordID");
create index dm1_event_records_device_rows on dm1_event_records ("IMEINumber", "EventTimestamp" desc, "Event_Record_ID" desc)
  include ("ReportedEventTimestamp", "PacketTimestamp", "EventID", "EventType", "PhaseAEvent", "PhaseBEvent", "PhaseCEvent", "DeviceRecordID");
drop index event_records_imei_ts_id_cover;
drop index dm1_event_records_imei_ts_id_cover;
-- The EventTimestamp-only indexes of migration 0008 serve no statement (every read of these tables names the device,
-- and critical-data walks by time on 0050's partial indexes), but a generic plan of a day-cut partition holding
-- one device's DM1 events took them for the page's walk, with a sort after: every such partition read whole for
-- any other device (docs/decisions.md#reads-bounded-at-a-fine-cut). Without them, the device's index is the only
-- order a generic plan can walk (the partial indexes of 0048 and 0050 serve only a condition on the fault types,
-- which a generic plan's placeholder cannot prove).
drop index event_records_ts;
drop index dm1_event_records_ts;
