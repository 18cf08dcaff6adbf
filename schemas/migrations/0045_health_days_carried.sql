-- What health retention removed, carried (docs/decisions.md#review-of-fleet-health-as-a-crash): the battery
-- forecast counts the charge a cell has given since the device's first day (fleet/battery-forecast.ts), and a cell
-- outlives the 36 months of daily rows retention keeps. The statement that deletes a device's old days
-- (storage/health-retention.ts) adds their check-ins and connection seconds here, so the charge spent never
-- drops; the assess step (fleet-health/assess.ts) reads this row with the days still kept, in one statement.
create table device_health_carried (
  "IMEINumber"     text primary key,
  first_day        date not null,
  through_day      date not null,
  messages         bigint not null,
  connect_seconds  numeric not null
);
