-- The outbox workers wake when a row arrives (docs/decisions.md#plumbing-written-once, #workers-wake-on-notify):
-- every statement that adds rows to the MultiSpeak outbox or the alarm outbox notifies the worker, in whatever
-- process runs it, as alarm_changes wakes the alarm router (0017). The worker's tick stays as the fallback for
-- a lost notification and for rows that only time makes due (a retry's back-off, an expired lease, an
-- operator's retry).
create function outbox_rows_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify(tg_argv[0], '');
  return null;
end $$;

create trigger outbox_rows_wakeup after insert on outbox
  for each statement execute function outbox_rows_notify('outbox_rows');

create trigger alarm_outbox_rows_wakeup after insert on alarm_outbox
  for each statement execute function outbox_rows_notify('alarm_outbox_rows');
