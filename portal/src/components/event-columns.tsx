// The columns every event table shares (critical faults, a device's events): when and what, and the
// currents with spec 3.4's transformations as the API applied them (reset threshold, post-event reference).
import type { PresentedEvent } from '../api/types';
import type { Column } from './table';

export const EVENT_HEAD_COLUMNS: Column<PresentedEvent>[] = [
  { key: 'EventTimestamp', label: 'Event time' },
  { key: 'EventType', label: 'Event', render: (e) => <strong>{e.EventType}</strong> },
];

export const EVENT_CURRENT_COLUMNS: Column<PresentedEvent>[] = [
  { key: 'PrefaultCurrent', label: 'Prefault (A)', numeric: true },
  { key: 'FaultCurrent', label: 'Fault (A)', numeric: true },
  { key: 'RecoverCurrent', label: 'Recover (A)', numeric: true },
  { key: 'PermanentFaultResetCurrentThreshold', label: 'Reset threshold (A)', numeric: true },
  { key: 'PostEventRef', label: 'Post-event reference' },
];
