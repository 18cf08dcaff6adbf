-- Indicators and topology that audit themselves (issue 43 point 4; docs/decisions.md#indicator-audit).

-- What each closed incident said about each indicator on its power line (indicator-audit/evidence.ts),
-- written by the incident worker in the step that closes the incident. One row per indicator and incident,
-- so a replayed step adds nothing; seq orders the evidence as it was recorded.
create table indicator_evidence (
  seq              bigint generated always as identity,
  incident_id      bigint not null references incidents on delete cascade,
  "IMEINumber"     text not null,
  "OrganizationID" text not null references organizations,
  "PowerLineID"    text not null,
  verdict          text not null check (verdict in ('confirmed', 'missed', 'unconfirmed')),
  other_phase      boolean not null,
  recorded_at      timestamptz not null,
  primary key ("IMEINumber", incident_id)
);
create index indicator_evidence_seq on indicator_evidence ("IMEINumber", seq desc);

-- A finding (indicator-audit/findings.ts): raised and kept up to date while the indicator's recent evidence
-- supports it; an admin dismisses it with a reason (who, when and why stay on the row: the audit). Evidence up
-- to dismissed_through (its seq) never raises a finding for the indicator again; only newer evidence can.
create table indicator_findings (
  id                bigint generated always as identity primary key,
  "OrganizationID"  text not null references organizations,
  "IMEINumber"      text not null,
  "PowerLineID"     text not null,
  kind              text not null check (kind in ('failed-or-mis-set', 'topology-or-phase')),
  -- The contradicting incidents among the recent evidence, oldest first; their count and the evidence judged.
  incidents         bigint[] not null,
  contradictions    integer not null,
  considered        integer not null,
  raised_at         timestamptz not null,
  updated_at        timestamptz not null,
  dismissed_at      timestamptz,
  dismissed_by      text,
  dismiss_reason    text,
  dismissed_through bigint,
  check ((dismissed_at is null) = (dismissed_by is null) and (dismissed_at is null) = (dismiss_reason is null)
         and (dismissed_at is null) = (dismissed_through is null))
);
create unique index indicator_findings_open on indicator_findings ("IMEINumber") where dismissed_at is null;
create index indicator_findings_org on indicator_findings ("OrganizationID", id desc);
create index indicator_findings_dismissed on indicator_findings ("IMEINumber", dismissed_through desc) where dismissed_at is not null;
