-- The fleet digest (issue 44 point 6; docs/decisions.md#fleet-digest): a recipient may ask for a daily or
-- weekly fleet health summary, sent through the alarm outbox like every alarm message (one per recipient and
-- period: the period is the message's dedup key).
alter table alarm_recipients add column fleet_digest text check (fleet_digest in ('daily', 'weekly'));
alter table alarm_outbox drop constraint alarm_outbox_kind_check;
alter table alarm_outbox add constraint alarm_outbox_kind_check
  check (kind in ('raised', 'cleared', 'escalated', 'digest', 'digest-end', 'fleet-digest'));
