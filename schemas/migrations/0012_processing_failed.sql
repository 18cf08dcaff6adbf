-- Dead letters of poison records (docs/decisions.md#poison-records): the topic the record was read from (where
-- `faultline rejected resubmit` sends it again) and the error with its stack. Both null for the other codes.
alter table rejected_messages add column topic text, add column detail text;
-- `faultline rejected --code C --since T` and resubmit by code.
create index rejected_messages_code on rejected_messages (code, rejected_at);
