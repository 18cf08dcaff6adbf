-- When an integration's claim on its SCADA master began (docs/decisions.md#scada-listener-slots-sessions-and-claims):
-- of two organisations proving one master certificate through the same name, the older claim keeps the master
-- (integrations/master-certificate.ts firstClaim). created_at is no such time: an old row repointed at another
-- master (a new masterIdentity, pin, caFile, or another organisation) would keep its old date and take the
-- master from its rightful owner. The trigger resets the claim on every such change, whoever writes the row.
alter table integrations add column claimed_at timestamptz not null default now();
update integrations set claimed_at = created_at;

create function integrations_claim_reset() returns trigger language plpgsql as $$
begin
  if (new."OrganizationID", new.kind, lower(new.settings->>'masterIdentity'), new.settings->>'certificateMode',
      new.settings->>'pinnedCertificateFile', new.settings->>'caFile')
     is distinct from
     (old."OrganizationID", old.kind, lower(old.settings->>'masterIdentity'), old.settings->>'certificateMode',
      old.settings->>'pinnedCertificateFile', old.settings->>'caFile') then
    new.claimed_at := now();
  else
    new.claimed_at := old.claimed_at;
  end if;
  return new;
end $$;

create trigger integrations_claim_reset before update on integrations
  for each row execute function integrations_claim_reset();
