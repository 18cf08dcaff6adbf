-- Deep pages of the data-log (issue 4, point 5: no OFFSET scan past what is needed). A page is found in two
-- steps (api/device-records/endpoint.ts pageOf with a `key`): the RecordIDs of the page from this index
-- alone, then the 50 whole rows. Carrying "IMEINumber" lets the first step check the caller's reach
-- without reading the table: an index-only walk of the skipped rows instead of a heap fetch per row
-- (page 2,000 of 1M records: ~75 ms -> ~23 ms, bench/results/history/api.md).
create index device_records_date_id_imei on device_records ("date" desc, "RecordID" desc) include ("IMEINumber");
drop index if exists device_records_date_id;
