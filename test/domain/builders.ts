// Small builders for table rows: an event or a check-in with only the fields a row cares about.
import type { CheckIn, DeviceEvent, DeviceSnapshot } from '../../domain/checkin.js';
import { parseQueueMessage } from '../../domain/validate-message.js';
import { messageBody } from './fixtures.js';

/** `hh:mm:ss(.sss)` on 2026-11-20 (UTC) in the interchange form; full ISO strings pass through. */
export function at(time: string): string {
  if (time.includes('T')) return time;
  const [hms, ms = '000'] = time.split('.');
  return `2026-11-20T${hms}.${ms.padEnd(3, '0')}Z`;
}

export function event(EventID: number, time: string, EventType: string, extra: Partial<DeviceEvent> = {}): DeviceEvent {
  return {
    EventID, EventTimestamp: at(time), EventType, PrefaultCurrent: null, FaultCurrent: null, RecoverCurrent: null,
    PhaseAEvent: null, PhaseBEvent: null, PhaseCEvent: null, ...extra,
  };
}

/** A fixture message, validated (throws if the fixture is not valid). */
export function fixtureCheckIn(file: string): CheckIn {
  const result = parseQueueMessage(messageBody(file));
  if (!result.ok) throw new Error(`${file}: ${result.reason}`);
  return result.value;
}

/** Fixture 001 with device_data and events replaced as given. */
export function checkIn(change: { device?: Partial<CheckIn['device_data']>; events?: DeviceEvent[]; dm1?: boolean; currents?: CheckIn['currents'] } = {}): CheckIn {
  const base = fixtureCheckIn('001-plain-checkin.json');
  return {
    device_data: { ...base.device_data, ...change.device },
    events: change.events ?? base.events,
    currents: change.currents === undefined ? base.currents : change.currents,
    dm1_device: change.dm1 ?? base.dm1_device,
  };
}

export function snapshot(change: Partial<DeviceSnapshot> = {}): DeviceSnapshot {
  return {
    DeviceID: 1, IMEINumber: '861000000000000', Real_Name: 'North F12 Pole 40 Phase A', Lat: 41.8, Long: -87.7,
    OrganizationID: 'north', PowerLineID: 'north-F12', dnp3QueueAddress: 'dnp3.north', ...change,
  };
}
