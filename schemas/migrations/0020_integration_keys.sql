-- Machine credentials for the SCADA integrations' REST outputs (issue 41 point 7;
-- docs/decisions.md#integration-keys-and-the-mask). An organisation admin creates, rotates and revokes them; the
-- key is shown once and only the SHA-256 of its secret part is kept. A revoked key stays listed (who made it,
-- when it was last used) and never works again.
create table integration_keys (
  id               text primary key check (id ~ '^[0-9a-f]{16}$'),
  "OrganizationID" text not null references organizations,
  role             text not null default 'integration' check (role = 'integration'),
  name             text not null check (length(name) between 1 and 200),
  secret_sha256    bytea not null check (length(secret_sha256) = 32),
  created_by       text not null,
  created_at       timestamptz not null default now(),
  rotated_at       timestamptz,
  last_used_at     timestamptz,
  revoked_at       timestamptz
);
create index integration_keys_organization on integration_keys ("OrganizationID");
