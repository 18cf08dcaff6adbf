-- What a SCADA master did wrong, for every protocol (issue 33 point 3; docs/decisions.md#master-diagnostics):
-- 0010's dnp3_discards generalised to a protocol column, so the DNP3 outstation and the IEC 104 station count
-- into one table through one ledger (integrations/diagnostics-ledger.ts). integration_id '' holds refusals
-- before any integration was known (an IEC 104 TLS handshake that failed, a certificate no integration names).
alter table dnp3_discards rename to master_diagnostics;
alter table master_diagnostics add column protocol text not null default 'dnp3' check (protocol in ('dnp3', 'iec104'));
alter table master_diagnostics alter column protocol drop default;
alter table master_diagnostics drop constraint dnp3_discards_pkey;
alter table master_diagnostics add primary key (protocol, integration_id, reason);
