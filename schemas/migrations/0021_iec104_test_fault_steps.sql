-- A test fault's timeline names the IEC 104 station's send and the master's acknowledgement of its events, as it
-- names DNP3's (iec104/event-timing.ts; docs/decisions.md#test-faults).
alter table test_fault_steps drop constraint test_fault_steps_step_check;
alter table test_fault_steps add constraint test_fault_steps_step_check
  check (step in ('queued', 'stored', 'dnp3Sent', 'dnp3Confirmed', 'iec104Sent', 'iec104Confirmed', 'omsAnswered', 'omsFailed'));
