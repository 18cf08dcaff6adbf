-- Reliability analytics (issue 43; docs/decisions.md#reliability-analytics-issue-43-rel-core): what each incident
-- contributes, per power line and per faulted section and per day, kept by the incident worker in the
-- transaction that writes the incident (incidents/step.ts, reliability/contribution.ts), so the two never
-- disagree and a reader sums days instead of scanning incident history.
--
-- The day is the UTC calendar day of the incident's first trip by device time (first_trip_at): a fixed zone,
-- so a day never moves when an organisation or a user changes time zone, and the API's from/to are UTC days.
-- An incident counts once in its line's row and once in the row of each section it was located in (an
-- incident located in two sections counts in both sections, once on the line). tripped_indicators: the
-- incident's tripped indicators (incident_devices), on the line row and on each of its section rows.
-- When an incident changes kind, first trip, sections or indicators, the worker subtracts its old contribution
-- and adds the new one; a row whose counts all reach zero is deleted.

create table reliability_line_days (
  "OrganizationID"   text not null references organizations,
  "PowerLineID"      text not null,
  day                date not null,
  permanent          integer not null default 0 check (permanent >= 0),
  momentary          integer not null default 0 check (momentary >= 0),
  unknown            integer not null default 0 check (unknown >= 0),
  tripped_indicators integer not null default 0 check (tripped_indicators >= 0),
  primary key ("OrganizationID", day, "PowerLineID")
);

-- section_imei: the indicator at the section's upstream end (FaultedSection.from), a stable key; label: the
-- section's label when it was last written (the from-indicator's Section, else "below <name>").
create table reliability_section_days (
  "OrganizationID"   text not null references organizations,
  "PowerLineID"      text not null,
  section_imei       text not null,
  day                date not null,
  label              text not null,
  permanent          integer not null default 0 check (permanent >= 0),
  momentary          integer not null default 0 check (momentary >= 0),
  unknown            integer not null default 0 check (unknown >= 0),
  tripped_indicators integer not null default 0 check (tripped_indicators >= 0),
  primary key ("OrganizationID", "PowerLineID", day, section_imei)
);

-- Back-fill from the incidents already stored (same rules as reliability/contribution.ts).
with i as (
  select i.id, i."OrganizationID", i."PowerLineID", (i.first_trip_at at time zone 'UTC')::date as day, i.kind, i.sections,
         (select count(*)::int from incident_devices x where x.incident_id = i.id) as tripped
    from incidents i
)
insert into reliability_line_days ("OrganizationID", "PowerLineID", day, permanent, momentary, unknown, tripped_indicators)
select "OrganizationID", "PowerLineID", day,
       count(*) filter (where kind = 'permanent'), count(*) filter (where kind = 'momentary'), count(*) filter (where kind = 'unknown'),
       sum(tripped)
  from i group by 1, 2, 3;

with s as (
  select distinct on (i.id, sec->'from'->>'imei')
         i."OrganizationID", i."PowerLineID", sec->'from'->>'imei' as section_imei, (i.first_trip_at at time zone 'UTC')::date as day,
         sec->>'label' as label, i.kind, i.updated_at,
         (select count(*)::int from incident_devices x where x.incident_id = i.id) as tripped
    from incidents i cross join lateral jsonb_array_elements(i.sections) sec
   order by i.id, sec->'from'->>'imei'
)
insert into reliability_section_days ("OrganizationID", "PowerLineID", section_imei, day, label, permanent, momentary, unknown, tripped_indicators)
select "OrganizationID", "PowerLineID", section_imei, day, (array_agg(label order by updated_at desc))[1],
       count(*) filter (where kind = 'permanent'), count(*) filter (where kind = 'momentary'), count(*) filter (where kind = 'unknown'),
       sum(tripped)
  from s group by 1, 2, 3, 4;

-- What each incident has added to the day tables (reliability/contribution.ts IncidentFacts), written by the
-- worker with every change: the next change subtracts exactly this. An incident opened or changed by a worker of
-- an older release during a rolling upgrade has no record of that change, and the worker would otherwise
-- subtract a contribution never added (a count below zero stops the incident worker for every organisation).
-- Filled here from the same incidents as the back-fill above, in the same transaction.
alter table incidents add column reliability_applied jsonb;
update incidents i set reliability_applied = jsonb_build_object(
  'organizationId', i."OrganizationID", 'powerLineId', i."PowerLineID", 'kind', i.kind,
  'firstTripAt', round(extract(epoch from i.first_trip_at) * 1000)::bigint,
  'trippedIndicators', (select count(*)::int from incident_devices x where x.incident_id = i.id),
  'sections', (select coalesce(jsonb_agg(distinct jsonb_build_object('from', jsonb_build_object('imei', sec->'from'->>'imei'), 'label', sec->>'label')), '[]'::jsonb)
                 from jsonb_array_elements(i.sections) sec));

-- Optional per-section facts of the import (reference-data/): the customers supplied by the stretch of line
-- below the indicator and its length. With them the API gives rates per 100 km and a customer-weighted estimate.
alter table device_information
  add column "SectionCustomers" integer check ("SectionCustomers" >= 0),
  add column "SectionLengthKm" double precision check ("SectionLengthKm" >= 0);
