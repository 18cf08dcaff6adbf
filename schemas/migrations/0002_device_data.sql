-- The materialized device data of spec 2.2 to 2.4, written only by the persist stage.
-- Idempotence lives in the unique keys: a re-delivered or replayed message meets ON CONFLICT DO NOTHING.

create table device_records (
  "RecordID"                bigint generated always as identity primary key,
  "IMEINumber"              text not null,
  "model"                   text,
  "version"                 text,
  "date"                    timestamptz not null,
  "rssi"                    double precision,
  "current_status"          double precision,
  "master"                  double precision,
  "statusPacket"            text,
  "eventPacket"             text,
  "LEDDuration"             double precision,
  "LEDTimer"                double precision,
  "BatteryMCU"              double precision,
  "BatteryLED"              double precision,
  "State"                   double precision,
  "FaultType"               double precision,
  "BatteryOrLine"           double precision,
  "FastMode"                double precision,
  "Calibrated"              double precision,
  "AverageCurrent1m"        double precision,
  "PrefaultCurrent"         double precision,
  "AverageCurrent1h"        double precision,
  "PeakCurrent24h"          double precision,
  "Tempfault_Reset_Hours"   text,
  "Permfault_Reset_Hours"   double precision,
  "SOTF"                    double precision,
  "Brightness"              text,
  "Current_Reset"           text,
  "Block_Reset"             double precision,
  "Ongoing_fault"           integer not null,
  "channel"                 double precision,
  "gps_long"                double precision,
  "gps_lat"                 double precision,
  "Program"                 text,
  "ConnectTime"             double precision,
  "Temperature"             double precision,
  -- Ongoing_fault holds the computed value (spec 2.2); the device's own report is kept for audit.
  "ActualOngoingFault"      integer not null,
  "ReportedOngoingFault"    integer not null,
  "CurrentName"             text,
  "CurrentLat"              double precision,
  "CurrentLong"             double precision,
  "CreatedDate"             timestamptz not null default now(),
  source_message_id         text,
  -- docs/decisions.md#duplicate-device-record: a duplicate check-in is the same IMEI with the same date.
  unique ("IMEINumber", "date")
);
create index device_records_date on device_records ("date" desc);

-- Events keep the timestamp the device reported (ReportedEventTimestamp) beside the stored one, because the
-- Fault <50 rule (spec 3.4) moves EventTimestamp back 30 s: the unique key must not move with it.
create table event_records (
  "Event_Record_ID"         bigint generated always as identity primary key,
  "EventID"                 bigint not null,
  "EventTimestamp"          timestamptz not null,
  "EventType"               text not null,
  "PrefaultCurrent"         double precision,
  "FaultCurrent"            double precision,
  "RecoverCurrent"          double precision,
  "PacketTimestamp"         timestamptz not null,
  "IMEINumber"              text not null,
  "DeviceRecordID"          bigint not null references device_records,
  "ReportedEventTimestamp"  timestamptz not null,
  "TimestampShifted"        boolean not null default false,
  unique ("IMEINumber", "EventID", "ReportedEventTimestamp")
);
create index event_records_imei_ts on event_records ("IMEINumber", "EventTimestamp" desc);
create index event_records_ts on event_records ("EventTimestamp" desc);
create index event_records_record on event_records ("DeviceRecordID");

create table dm1_event_records (
  "Event_Record_ID"         bigint generated always as identity primary key,
  "EventID"                 bigint not null,
  "EventTimestamp"          timestamptz not null,
  "EventType"               text not null,
  "PhaseAEvent"             text,
  "PhaseBEvent"             text,
  "PhaseCEvent"             text,
  "PacketTimestamp"         timestamptz not null,
  "IMEINumber"              text not null,
  "DeviceRecordID"          bigint not null references device_records,
  "ReportedEventTimestamp"  timestamptz not null,
  unique ("IMEINumber", "EventID", "ReportedEventTimestamp")
);
create index dm1_event_records_imei_ts on dm1_event_records ("IMEINumber", "EventTimestamp" desc);
create index dm1_event_records_ts on dm1_event_records ("EventTimestamp" desc);
create index dm1_event_records_record on dm1_event_records ("DeviceRecordID");

-- Spec 2.4: one row per check-in that carried currents; H<n> holds HourlyAverages[n].
create table device_currents (
  "PacketTimestamp"         timestamptz not null,
  "IMEINumber"              text not null,
  "PeakCurrent"             double precision,
  "PeakCurrentTimestamp"    timestamptz,
  "AverageCurrentH0"        double precision,
  "AverageCurrentH1"        double precision,
  "AverageCurrentH2"        double precision,
  "AverageCurrentH3"        double precision,
  "AverageCurrentH4"        double precision,
  "AverageCurrentH5"        double precision,
  "AverageCurrentH6"        double precision,
  "AverageCurrentH7"        double precision,
  "AverageCurrentH8"        double precision,
  "AverageCurrentH9"        double precision,
  "AverageCurrentH10"       double precision,
  "AverageCurrentH11"       double precision,
  "AverageCurrentH12"       double precision,
  "AverageCurrentH13"       double precision,
  "AverageCurrentH14"       double precision,
  "AverageCurrentH15"       double precision,
  "AverageCurrentH16"       double precision,
  "AverageCurrentH17"       double precision,
  "AverageCurrentH18"       double precision,
  "AverageCurrentH19"       double precision,
  "AverageCurrentH20"       double precision,
  "AverageCurrentH21"       double precision,
  "AverageCurrentH22"       double precision,
  "AverageCurrentH23"       double precision,
  "CurrentName"             text,
  primary key ("IMEINumber", "PacketTimestamp")
);

-- docs/decisions.md#model-change-alert.
create table model_change_alerts (
  id                        bigint generated always as identity primary key,
  "IMEINumber"              text not null,
  "oldModel"                text not null,
  "newModel"                text not null,
  "at"                      timestamptz not null,
  "DeviceRecordID"          bigint references device_records,
  unique ("IMEINumber", "at")
);
create index model_change_alerts_at on model_change_alerts ("at" desc);
