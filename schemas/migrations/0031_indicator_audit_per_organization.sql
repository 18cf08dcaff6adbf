-- The indicator audit per organisation (docs/decisions.md#indicator-audit-per-organisation): evidence and findings
-- are an organisation's, keyed by (OrganizationID, IMEINumber), and read from the device's joining the organisation
-- on (OrganizationSince, as every reader of device history: docs/decisions.md#reach-applied-once). Keyed by IMEI
-- alone (0029), a device moved to another organisation was judged on both organisations' incidents, and the new
-- organisation read the old one's incident ids and times as its evidence.

-- Evidence: every row already carries its incident's organisation (indicator-audit/record.ts writes the
-- incident's); a row that does not is dropped so the key says what the rows are.
delete from indicator_evidence e using incidents i where i.id = e.incident_id and i."OrganizationID" <> e."OrganizationID";
alter table indicator_evidence drop constraint indicator_evidence_pkey;
alter table indicator_evidence add primary key ("OrganizationID", "IMEINumber", incident_id);
drop index indicator_evidence_seq;
create index indicator_evidence_seq on indicator_evidence ("OrganizationID", "IMEINumber", seq desc);

-- Findings judged with another organisation's incidents (a device moved before this migration): those incidents
-- leave the finding, whose count follows; an open one is closed, its audit saying why, and the device is judged
-- again from its organisation's own evidence as it comes (dismissed_through 0 holds none of it back).
with judged as (
  select f.id,
         coalesce(array_agg(x.incident order by x.n) filter (where i."OrganizationID" = f."OrganizationID"), '{}') as own,
         count(*) filter (where i."OrganizationID" is distinct from f."OrganizationID") as foreign_incidents
    from indicator_findings f cross join lateral unnest(f.incidents) with ordinality as x(incident, n)
    left join incidents i on i.id = x.incident
   group by f.id
)
update indicator_findings f
   set incidents = judged.own, contradictions = cardinality(judged.own),
       dismissed_at = coalesce(f.dismissed_at, now()),
       dismissed_by = coalesce(f.dismissed_by, 'faultline (migration 0031)'),
       dismiss_reason = coalesce(f.dismiss_reason, 'judged with incidents of another organisation (the indicator moved); judged again from this organisation''s evidence'),
       dismissed_through = coalesce(f.dismissed_through, 0)
  from judged
 where judged.id = f.id and judged.foreign_incidents > 0;

-- At most one open finding per indicator stays the rule (indicator_findings_open, on IMEI): the worker closes an
-- open finding of another organisation, or of an earlier stay in this one, before it raises one, and a worker of
-- the release before (a rolling upgrade) keeps its ON CONFLICT target. Dismissals are looked up per organisation.
drop index indicator_findings_dismissed;
create index indicator_findings_dismissed on indicator_findings ("OrganizationID", "IMEINumber", dismissed_through desc) where dismissed_at is not null;
