-- Reference data of spec 2.5 and the users of docs/decisions.md#identity-and-access.
-- Column names are the spec's (quoted, case kept) so rows, API fields and topic records share one vocabulary.
-- Soft delete: `deleted_at` set means gone for every reader (spec 2.5 relationship 6).

create table organizations (
  "OrganizationID"   text primary key,
  name               text not null,
  "MaskFaultDetails" boolean not null default false,
  timezone           text not null default 'UTC',
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now()
);

create table power_lines (
  "Id"             text primary key,
  "OrganizationID" text not null references organizations,
  name             text,
  deleted_at       timestamptz
);
create index power_lines_org on power_lines ("OrganizationID");

create table groups (
  "GroupID"        text primary key,
  "OrganizationID" text not null references organizations,
  name             text,
  deleted_at       timestamptz
);
create index groups_org on groups ("OrganizationID");

create table device_information (
  "DeviceID"         bigint generated always as identity primary key,
  "IMEINumber"       text not null unique,
  "Real_Name"        text,
  "Lat"              double precision,
  "Long"             double precision,
  "LastCheckInTime"  timestamptz,
  "OrganizationID"   text not null references organizations,
  "PowerLineID"      text references power_lines,
  "serialNumber"     text,
  "dnp3QueueAddress" text,
  deleted_at         timestamptz,
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now()
);
create index device_information_org on device_information ("OrganizationID") where deleted_at is null;
create index device_information_power_line on device_information ("PowerLineID");

create table group_device_links (
  "DeviceID" bigint not null references device_information on delete cascade,
  "GroupID"  text not null references groups on delete cascade,
  primary key ("DeviceID", "GroupID")
);
create index group_device_links_group on group_device_links ("GroupID");

create table users (
  id               bigint generated always as identity primary key,
  email            text not null,
  password_hash    text not null,
  "OrganizationID" text not null references organizations,
  role             text not null check (role in ('admin', 'user')),
  timezone         text,
  deleted_at       timestamptz,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
-- Emails compare case-insensitively: Ops@North and ops@north are one login.
create unique index users_email on users (lower(email));

create table user_groups (
  user_id   bigint not null references users on delete cascade,
  "GroupID" text not null references groups on delete cascade,
  primary key (user_id, "GroupID")
);
