// The columns every event table shares (critical faults, a device's events): when and what, and the
// currents with spec 3.4's transformations as the API applied them. The post-event reference is not a value
// of its own: it names the current it qualifies, so it is shown as that current's label.
import type { PresentedEvent } from '../api/types';
import { postEventRefField } from '../event-triage';
import { cell, type Column } from './table';

export const EVENT_HEAD_COLUMNS: Column<PresentedEvent>[] = [
  { key: 'EventTimestamp', label: 'Event time (device clock)', wrap: true },
  { key: 'EventType', label: 'Event', render: (e) => <strong>{e.EventType}</strong> },
];

function qualified(field: 'PrefaultCurrent' | 'RecoverCurrent') {
  return (e: PresentedEvent) => {
    const labelled = postEventRefField(e.PostEventRef) === field;
    return labelled ? <><span class="value-ref" data-testid="post-event-ref">{e.PostEventRef}</span> {cell(e[field])}</> : cell(e[field]);
  };
}

export const EVENT_CURRENT_COLUMNS: Column<PresentedEvent>[] = [
  { key: 'PrefaultCurrent', label: 'Prefault (A)', numeric: true, render: qualified('PrefaultCurrent') },
  { key: 'FaultCurrent', label: 'Fault (A)', numeric: true },
  { key: 'RecoverCurrent', label: 'Recover (A)', numeric: true, render: qualified('RecoverCurrent') },
  { key: 'PermanentFaultResetCurrentThreshold', label: 'Reset threshold (A)', numeric: true },
];
