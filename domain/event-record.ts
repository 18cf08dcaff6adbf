// Event records as stored (spec 2.3, 6.1 step 9): the table follows the message's dm1_device flag; each
// event carries the check-in's IMEINumber and date (PacketTimestamp). DeviceRecordID and Event_Record_ID are
// generated at insert time and are not part of the decision.
import type { DeviceEvent } from './checkin.js';

export type EventTable = 'event_records' | 'dm1_event_records';

export function eventTable(dm1Device: boolean): EventTable {
  return dm1Device ? 'dm1_event_records' : 'event_records';
}

export interface EventRecord extends DeviceEvent {
  table: EventTable;
  IMEINumber: string;
  /** device_data.date of the message that brought the event. */
  PacketTimestamp: string;
  /** The timestamp the device reported; EventTimestamp differs only when TimestampShifted. */
  OriginalEventTimestamp: string;
  /** Spec 3.4: a Fault <50 moved back 30 s; remembered so it is never moved twice. */
  TimestampShifted: boolean;
}
