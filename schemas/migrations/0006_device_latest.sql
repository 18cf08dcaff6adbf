-- The latest check-in of every IMEI, kept by the persist stage in the same transaction as the records, so
-- fleet-wide views (map-data, device-summary, dnp3OrganizationDevices) read one row per device instead of
-- probing each device's history per request. Keyed by IMEI, not by device, so a device registered after it
-- started checking in shows its status at once.
create table device_latest (
  "IMEINumber"         text primary key,
  "RecordID"           bigint not null references device_records,
  "date"               timestamptz not null,
  "ActualOngoingFault" integer not null,
  "BatteryOrLine"      double precision
);

insert into device_latest ("IMEINumber", "RecordID", "date", "ActualOngoingFault", "BatteryOrLine")
  select distinct on ("IMEINumber") "IMEINumber", "RecordID", "date", "ActualOngoingFault", "BatteryOrLine"
    from device_records order by "IMEINumber", "date" desc, "RecordID" desc;
