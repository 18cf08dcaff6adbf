-- The alarm router routes a raise or clear as it arrives (docs/decisions.md#workers-wake-on-notify): every
-- statement that adds routing work wakes it, in whatever process runs it, like dnp3_change wakes the point feed
-- and incident_inbox the incident worker. Its tick stays as the fallback for a lost notification.
create function alarm_changes_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('alarm_changes', '');
  return null;
end $$;

create trigger alarm_changes_wakeup after insert on alarm_changes
  for each statement execute function alarm_changes_notify();
