-- IEC 60870-5-104 (issue 33, docs/decisions.md#iec-104-outstation): integrations of kind iec104, and what a
-- station keeps across a restart of faultline (points/persistence.ts): the events not yet acknowledged by a
-- master, in order, and the last value of every point, so a change stored while the station was down is an event
-- when it comes back. 0016: 0015 is taken by a parallel branch.
alter table integrations drop constraint integrations_kind_check;
alter table integrations add constraint integrations_kind_check check (kind in ('multispeak', 'dnp3', 'iec104'));

-- Encoded events (one ASDU each for IEC 104), oldest first; deleted once a master acknowledged them.
create table pending_point_events (
  integration_id  text not null references integrations (id) on delete cascade,
  seq             bigint not null,
  payload         bytea not null,
  primary key (integration_id, seq)
);

-- The value of every point as the station last held it: bank (IEC 104: common address) and address (IOA).
create table point_images (
  integration_id  text not null references integrations (id) on delete cascade,
  bank            integer not null,
  address         integer not null,
  kind            text not null check (kind in ('binary', 'analog')),
  value           double precision not null,
  quality         integer not null,
  time_ms         bigint not null,
  primary key (integration_id, bank, address)
);
