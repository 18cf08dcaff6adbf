-- Notify's effects of a stored check-in, recorded in the transaction that stores it and cleared in the one that
-- writes them (docs/decisions.md#effects-exactly-once-across-a-crash). A row is what notify is owed: the
-- record as persist forwards it (`message`, the ComputedCheckIn) and the events this message stored. A crash
-- between the two transactions leaves the row; the next batch of the device, or the next assignment of the
-- notify stage, applies it before anything newer of that device.
create table pending_effects (
  "RecordID"        bigint primary key,
  "IMEINumber"      text not null,
  message           json not null,
  "storedEventIds"  bigint[] not null,
  created_at        timestamptz not null default now()
);

create index pending_effects_device on pending_effects ("IMEINumber", "RecordID");
