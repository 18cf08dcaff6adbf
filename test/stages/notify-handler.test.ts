// The notify handler production runs (spec 6.1 steps 11-12, 6.2), table-tested: what one stored check-in sends
// to the device's DNP3 topic and into the MultiSpeak outbox.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CHECKIN_OPERATION } from '../../multispeak/operations.js';
import { notificationsFor, type MultiSpeakIntegration } from '../../stages/notify/handler.js';
import { REPLAY_SOURCE, REPROCESS_SOURCE } from '../../plumbing/sources.js';
import type { PersistedCheckIn } from '../../schemas/avro/values.js';
import { enriched, ev, persisted } from './handler-messages.js';

const OD: MultiSpeakIntegration = { id: 'north-oms', OrganizationID: 'north', operation: 'ODEventNotification', checkins: true };
const ANALOG: MultiSpeakIntegration = { id: 'north-analog', OrganizationID: 'north', operation: CHECKIN_OPERATION, checkins: true };
const QUIET_ANALOG: MultiSpeakIntegration = { ...ANALOG, id: 'north-quiet', checkins: false };
const SOUTH: MultiSpeakIntegration = { ...OD, id: 'south-oms', OrganizationID: 'south' };
const ALL = [OD, ANALOG, QUIET_ANALOG, SOUTH];

const plain = () => persisted(enriched({}));
const faulted = () => persisted(enriched({ device: { Ongoing_fault: 4 }, events: [ev(12, '13:59:00', 'PFault')] }), { previousActualOngoingFault: 0 });
const outbox = (m: PersistedCheckIn) => notificationsFor(m, ALL).outbox.map((r) => `${r.integrationId}:${r.kind}`);

const rows: [string, () => PersistedCheckIn, string[], boolean][] = [
  ['6.1 step 11: a registered device\'s check-in goes to its DNP3 topic; 6.2: check-ins only to the analog operation with check-ins on', plain, ['north-analog:checkin'], true],
  ['6.2: a fault event or a changed fault code adds a status row for every integration of the organisation', faulted, ['north-oms:status', 'north-analog:checkin', 'north-analog:status', 'north-quiet:status'], true],
  ['6.2: a first check-in that already reports a fault counts as a change', () => persisted(enriched({ device: { Ongoing_fault: 4 } }), { previousActualOngoingFault: null }), ['north-oms:status', 'north-analog:checkin', 'north-analog:status', 'north-quiet:status'], true],
  ['an unregistered device sends nothing (stored, invisible until registered)', () => persisted(enriched({}, false)), [], false],
  ['a message that did not store the record (an earlier copy did) sends nothing again', () => ({ ...faulted(), ownsRecord: false }), [], false],
  ['a replay sends nothing to customers', () => ({ ...faulted(), source: REPLAY_SOURCE }), [], false],
  ['a reprocess sends nothing to customers', () => ({ ...faulted(), source: REPROCESS_SOURCE }), [], false],
];

for (const [name, message, expected, dnp3] of rows) {
  test(name, () => {
    const m = message();
    const n = notificationsFor(m, ALL);
    assert.equal(outbox(m), expected);
    assert.is(n.dnp3 !== null, dnp3, 'DNP3 output');
    if (n.dnp3) assert.is(n.dnp3.address, 'dnp3.north');
  });
}

test('the outbox payload carries the check-in-time name and location, and stored events with their spec 3.4 times', () => {
  const m = persisted(enriched({ device: { Ongoing_fault: 2 }, events: [ev(200, '13:50:00', 'Fault <50'), ev(201, '13:53:00', 'TFault')] }), {
    shifts: [{ EventID: 200, fromTimestamp: '2026-11-20T13:50:00.000Z', toTimestamp: '2026-11-20T13:49:30.000Z' }],
  });
  const status = notificationsFor(m, [OD]).outbox[0]!;
  assert.equal([status.payload.Real_Name, status.payload.CurrentLat, status.payload.CurrentLong], [m.CurrentName, 41.8, -87.7]);
  assert.equal(status.payload.events?.map((e) => [e.EventID, e.EventTimestamp, e.TimestampShifted]), [
    [200, '2026-11-20T13:49:30.000Z', true], [201, '2026-11-20T13:53:00.000Z', false],
  ]);
  assert.is(status.dedupKey, `status:861000000000000:${m.checkIn.device_data.date}`, 'one notification per check-in and integration, whatever the redeliveries');
});

test.run();
