-- Reads bounded by the answer (issue 45, docs/decisions.md#reads-bounded-by-the-answer): a device's events
-- (api/device-records/events.ts) are counted for the page's total up to COUNT_CAP per request. The conditions of
-- that count are on the index's columns and on ReportedEventTimestamp (the partition key, a day range's twin)
-- and PacketTimestamp (a moved device's history): carried here, the count is an index-only walk of the
-- device's entries instead of a heap page per event (a week of one device: 55 -> 500 buffers from 20k to
-- 200k check-ins before). On the partitioned parents, so every month has it.
create index event_records_imei_ts_id_cover on event_records ("IMEINumber", "EventTimestamp" desc, "Event_Record_ID" desc)
  include ("ReportedEventTimestamp", "PacketTimestamp");
drop index if exists event_records_imei_ts_id;
create index dm1_event_records_imei_ts_id_cover on dm1_event_records ("IMEINumber", "EventTimestamp" desc, "Event_Record_ID" desc)
  include ("ReportedEventTimestamp", "PacketTimestamp");
drop index if exists dm1_event_records_imei_ts_id;
