-- Issue 43 item 3 (docs/decisions.md#reliability-export): the cause of each incident, recorded by an operator
-- from the organisation's list, with its history (who, when, what) kept: a cause is changed by a new row,
-- never by an update, so the regulator's report can show how a cause came to be.

-- The organisation's list of causes; no row: the default list (domain/incident-causes.ts). Its admins replace
-- it through PUT /api/incident-causes.
create table incident_cause_lists (
  "OrganizationID" text primary key references organizations,
  causes           text[] not null check (cardinality(causes) between 1 and 100),
  updated_by       text not null,
  updated_at       timestamptz not null
);

-- Every cause recorded for an incident; the newest row (highest id) is the incident's cause now.
-- major_event: the operator's judgment that the incident belongs to a major event (IEEE 1366 excludes major
-- event days from the indices; faultline cannot compute the 2.5-beta method without customer minutes).
create table incident_cause_changes (
  id           bigint generated always as identity primary key,
  incident_id  bigint not null references incidents on delete cascade,
  cause        text not null,
  major_event  boolean not null default false,
  note         text,
  set_by       text not null,
  set_by_user  bigint,
  set_at       timestamptz not null
);
create index incident_cause_changes_incident on incident_cause_changes (incident_id, id desc);
