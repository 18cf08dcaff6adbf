-- The SCADA master listeners read their integrations again when they change
-- (docs/decisions.md#scada-master-identity-and-listener): every statement that writes `integrations` (faultline
-- import, the admin API, secrets rotate) wakes them, in whatever process runs them, so a disabled integration's
-- master or a changed pin's is refused and cut off without a restart. Their minute tick stays as the fallback for a lost notification.
create function integrations_change_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('integrations_change', '');
  return null;
end $$;

create trigger integrations_change_wakeup after insert or update or delete on integrations
  for each statement execute function integrations_change_notify();
