-- One open alarm per organisation, device and kind (docs/decisions.md#alarms-of-a-moved-device): a device moved
-- to another organisation while its old owner's alarm of a kind was open could not raise that kind for its new
-- owner (the raise met the old row in this index and did nothing), so the new owner never heard of its fault.
-- The import now also ends the old owner's open alarms when it moves a device (reference-data/upsert-devices.ts).
drop index alarms_one_active;
create unique index alarms_one_active on alarms ("OrganizationID", "IMEINumber", kind) where cleared_at is null;
