import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildDnp3Output, dnp3Delivery } from '../../domain/dnp3-output.js';
import { buildDeviceRecord } from '../../domain/device-record.js';
import type { EventRecord } from '../../domain/event-record.js';
import { event, fixtureCheckIn, snapshot } from './builders.js';

const enrichment = { CurrentName: 'North F7 Pole 41 Phase B', CurrentLat: 41.81, CurrentLong: -87.69 };
function record(batteryOrLine: number | null, fault = 4) {
  const device = { ...fixtureCheckIn('002-permanent-fault.json').device_data, BatteryOrLine: batteryOrLine };
  return buildDeviceRecord({ device, model: 'FCI-3000', enrichment, actualOngoingFault: fault });
}
const stored = (e: ReturnType<typeof event>, table: EventRecord['table']): EventRecord => ({
  ...e, table, IMEINumber: '861000000000100', PacketTimestamp: '2026-11-20T14:05:00.000Z', OriginalEventTimestamp: e.EventTimestamp, TimestampShifted: false,
});

test('fixture 002: the fields of docs/decisions.md#dnp3-json-output', () => {
  const pfault = stored(event(101, '14:04:10', 'PFault', { PrefaultCurrent: 140, FaultCurrent: 812, RecoverCurrent: 0 }), 'event_records');
  assert.equal(buildDnp3Output(record(0), [pfault]), {
    IMEINumber: '861000000000100',
    Real_Name: 'North F7 Pole 41 Phase B',
    date: '2026-11-20T14:05:00.000Z',
    ActualOngoingFault: 4,
    ActualOngoingFaultText: 'Permanent',
    BatteryOrLine: 'Line',
    AverageCurrent1m: 120.5,
    PrefaultCurrent: 118,
    AverageCurrent1h: 121.3,
    PeakCurrent24h: 210,
    BatteryMCU: 3.61,
    BatteryLED: 3.58,
    Temperature: 21.5,
    rssi: -71,
    events: [{ EventID: 101, EventTimestamp: '2026-11-20T14:04:10.000Z', EventType: 'PFault', PrefaultCurrent: 140, FaultCurrent: 812, RecoverCurrent: 0 }],
  });
});

// spec 2.2 / 6.2: [BatteryOrLine code, text]
const battery: [number | null, string | null][] = [[0, 'Line'], [1, 'Battery'], [7, 'Unknown (7)'], [null, null]];
for (const [code, text] of battery) {
  test(`BatteryOrLine ${code} -> ${text}`, () => {
    assert.is(buildDnp3Output(record(code), []).BatteryOrLine, text);
  });
}

test('ActualOngoingFaultText follows the code', () => {
  assert.equal([11, 10, 99].map((c) => buildDnp3Output(record(0, c), []).ActualOngoingFaultText), ['Probable Temp Fault', 'Current Reset', 'Unknown (99)']);
});

test('DM1 events carry the phase fields', () => {
  const fi = stored(event(3, '14:19:40', 'FAULT_INITIAL', { PhaseAEvent: 'Fault', PhaseBEvent: 'Normal', PhaseCEvent: 'Normal' }), 'dm1_event_records');
  assert.equal(buildDnp3Output(record(0), [fi]).events, [
    { EventID: 3, EventTimestamp: '2026-11-20T14:19:40.000Z', EventType: 'FAULT_INITIAL', PhaseAEvent: 'Fault', PhaseBEvent: 'Normal', PhaseCEvent: 'Normal' },
  ]);
});

// [name, device, stored?, address or null]
const delivery: [string, ReturnType<typeof snapshot> | null, boolean, string | null][] = [
  ['registered with an address', snapshot({ dnp3QueueAddress: 'dnp3.north' }), true, 'dnp3.north'],
  ['no address', snapshot({ dnp3QueueAddress: null }), true, null],
  ['empty address', snapshot({ dnp3QueueAddress: '' }), true, null],
  ['unregistered device', null, true, null],
  ['duplicate (not stored)', snapshot(), false, null],
];
for (const [name, device, isStored, address] of delivery) {
  test(`delivery: ${name}`, () => {
    assert.is(dnp3Delivery(device, record(0), [], isStored)?.address ?? null, address);
  });
}

test.run();
