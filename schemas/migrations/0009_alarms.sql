-- Alarm routing to people and systems (docs/decisions.md#alarm-routing): per-organisation recipients and
-- rules, the alarms themselves (one active per device and kind), the routing queue, the alarm outbox that
-- the generic outbox worker delivers (outbox/), storm state, and the learned check-in clock of every device.

-- Who hears: one address on one channel. A webhook's signing secret is stored only as AES-256-GCM
-- ciphertext with the id of its key (secrets/), like MultiSpeak credentials.
create table alarm_recipients (
  id               text primary key,
  "OrganizationID" text not null references organizations,
  name             text,
  channel          text not null check (channel in ('email', 'sms', 'webhook')),
  address          text not null,
  -- Messages per 24 h; null: ALARM_RECIPIENT_CAP_PER_DAY.
  cap_per_day      integer check (cap_per_day > 0),
  secret           bytea,
  secret_key_id    text,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
create index alarm_recipients_org on alarm_recipients ("OrganizationID");

-- What (alarm kinds, domain/alarm-kinds.ts), where (empty lists: everywhere), who (recipients, notified at
-- once), when (null: always; else days and hours in the organisation's time zone), class, escalation.
create table alarm_rules (
  id               text primary key,
  "OrganizationID" text not null references organizations,
  name             text,
  class            text not null check (class in ('operations', 'maintenance')),
  kinds            text[] not null,
  power_lines      text[] not null default '{}',
  groups           text[] not null default '{}',
  devices          text[] not null default '{}',
  recipients       text[] not null,
  hours            jsonb,
  escalation       jsonb,
  enabled          boolean not null default true,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
create index alarm_rules_org on alarm_rules ("OrganizationID");

-- One row per device, kind and episode (what began it: the raising check-in's date, or for communication
-- lost the last check-in before the silence). The partial unique index is "one alarm per device and
-- condition until it clears"; the unique key makes a re-delivered batch or a second clock process a no-op.
create table alarms (
  id               bigint generated always as identity primary key,
  "OrganizationID" text not null references organizations,
  "IMEINumber"     text not null,
  kind             text not null,
  episode          text not null,
  "PowerLineID"    text,
  class            text,
  detail           jsonb not null default '{}'::jsonb,
  raised_at        timestamptz not null,
  acknowledged_at  timestamptz,
  acknowledged_by  text,
  cleared_at       timestamptz,
  unique ("IMEINumber", kind, episode)
);
create unique index alarms_one_active on alarms ("IMEINumber", kind) where cleared_at is null;
create index alarms_org_raised on alarms ("OrganizationID", raised_at desc);

-- The routing queue: each raise and clear is routed exactly once (alarms/router.ts, one router at a time).
create table alarm_changes (
  id        bigint generated always as identity primary key,
  alarm_id  bigint not null references alarms on delete cascade,
  change    text not null check (change in ('raised', 'cleared')),
  at        timestamptz not null,
  routed_at timestamptz,
  unique (alarm_id, change)
);
create index alarm_changes_unrouted on alarm_changes (id) where routed_at is null;

-- The alarm outbox: the same columns and life as the MultiSpeak outbox (outbox/table.ts). One in flight per
-- (recipient, lane), so a clear never overtakes its raise. `suppressed` rows (over the recipient's cap)
-- are kept for the count and the record, and never sent.
create table alarm_outbox (
  id               bigint generated always as identity primary key,
  "OrganizationID" text not null,
  recipient_id     text not null references alarm_recipients on delete cascade,
  alarm_id         bigint references alarms on delete cascade,
  kind             text not null check (kind in ('raised', 'cleared', 'escalated', 'digest', 'digest-end')),
  lane             text not null,
  dedup_key        text not null,
  payload          jsonb not null,
  suppressed       text,
  created_at       timestamptz not null default now(),
  attempts         integer not null default 0,
  next_attempt_at  timestamptz not null default now(),
  last_error       text,
  delivered_at     timestamptz,
  dead_at          timestamptz,
  unique (recipient_id, dedup_key)
);
create index alarm_outbox_pending on alarm_outbox (recipient_id, lane, id) where delivered_at is null and dead_at is null and suppressed is null;
create index alarm_outbox_recipient_day on alarm_outbox (recipient_id, created_at);

-- An organisation in an alarm storm: digests instead of single messages until it calms.
create table alarm_storms (
  "OrganizationID" text primary key references organizations,
  started_at       timestamptz not null,
  digest_at        timestamptz not null,
  digests          integer not null default 0
);

-- The learned check-in clock (domain/checkin-clock.ts): the last check-in and the recent intervals of each
-- device; the expected interval is their median, floored. Kept by the notify stage.
create table checkin_clock (
  "IMEINumber"        text primary key,
  last_date           timestamptz not null,
  intervals           double precision[] not null default '{}',
  expected_interval_s double precision
);

-- Devices that checked in before this migration: their last nine check-ins give eight intervals.
insert into checkin_clock ("IMEINumber", last_date, intervals, expected_interval_s)
select "IMEINumber", max(date),
       coalesce(array_agg(gap order by date) filter (where gap is not null), '{}'),
       case when count(gap) >= 3 then percentile_cont(0.5) within group (order by gap) end
  from (
    select "IMEINumber", date, extract(epoch from date - lag(date) over w) as gap
      from (select "IMEINumber", date, row_number() over (partition by "IMEINumber" order by date desc) as n from device_records) r
     where n <= 9
    window w as (partition by "IMEINumber" order by date)
  ) g
 group by "IMEINumber";
