-- Operational tables: what could not be processed, who we deliver to, and what is still to deliver.

-- docs/decisions.md#unparseable-or-invalid-messages: never dropped silently. One row per message and stage;
-- the raw body is kept unchanged so `faultline rejected resubmit` can send it again.
create table rejected_messages (
  id             bigint generated always as identity primary key,
  message_id     text not null,
  source         text not null,
  stage          text not null,
  imei           text,
  code           text not null,
  reason         text not null,
  body           text not null,
  rejected_at    timestamptz not null,
  resubmitted_at timestamptz,
  unique (message_id, stage)
);
create index rejected_messages_at on rejected_messages (rejected_at desc);
create index rejected_messages_imei on rejected_messages (imei);

-- Integrations (docs/decisions.md#multispeak-notifications and #dnp3-outstation: MultiSpeak channels C/D, DNP3 channels A/B). Settings that are not secret
-- live in `settings`; MultiSpeak credentials only as AES-256-GCM ciphertext with the id of the key.
create table integrations (
  id                   text primary key,
  "OrganizationID"     text not null references organizations,
  kind                 text not null check (kind in ('multispeak', 'dnp3')),
  channel              text not null check (channel in ('A', 'B', 'C', 'D', 'E')),
  settings             jsonb not null default '{}'::jsonb,
  credentials          bytea,
  credentials_key_id   text,
  enabled              boolean not null default true,
  created_at           timestamptz not null default now(),
  updated_at           timestamptz not null default now()
);
create index integrations_org on integrations ("OrganizationID");

-- The durable MultiSpeak outbox: at-least-once, in order per device (docs/decisions.md#multispeak-notifications).
-- dedup_key makes a re-processed message add no second notification.
create table outbox (
  id              bigint generated always as identity primary key,
  integration_id  text not null references integrations on delete cascade,
  "IMEINumber"    text not null,
  kind            text not null check (kind in ('checkin', 'status')),
  dedup_key       text not null,
  payload         jsonb not null,
  created_at      timestamptz not null default now(),
  attempts        integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error      text,
  delivered_at    timestamptz,
  dead_at         timestamptz,
  unique (integration_id, dedup_key)
);
create index outbox_pending on outbox (integration_id, "IMEINumber", id) where delivered_at is null and dead_at is null;
