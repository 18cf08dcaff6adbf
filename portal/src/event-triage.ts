// How Critical faults ranks and labels an event for triage (docs/decisions.md#portal): a severity with a
// colour and a word (never colour alone), and the spec 3.4 post-event reference as the label of the value it
// qualifies. A masked organisation's events all read `Fault` (the class is hidden), so they rank as the
// worst class: a crew must not under-react to a fault whose kind it cannot see.
import { FAULT_EVENT_TYPES, MASKED_FAULT } from '../../domain/fault-masking';

export type Severity = 'Critical' | 'High' | 'Medium' | 'Info';

const SEVERITY_OF_TYPE: Record<string, Severity> = {
  // the line stays out: a permanent fault, a DM1 device's initial fault, a switch onto a fault
  PFault: 'Critical', FAULT_INITIAL: 'Critical', SOTF: 'Critical', Fault: 'Critical',
  // the line came back, but something tripped it
  TFault: 'High', Overcurrent: 'High',
  // fault-like readings below the fault threshold
  'Fault Like': 'Medium', 'Fault <50': 'Medium',
};

export const SEVERITY_COLOURS: Record<Severity, string> = { Critical: '#b71c1c', High: '#c43e00', Medium: '#8a6d00', Info: '#455a64' };

export function severityOf(eventType: string): Severity {
  return SEVERITY_OF_TYPE[eventType] ?? 'Info';
}

export const MODEL_CHANGE = 'Model Change';

/** The event-type choices of the Critical faults filter: every fault, each class (unless masked), model changes. */
export function eventTypeChoices(masked: boolean): { value: string; label: string }[] {
  const classes = masked ? [] : FAULT_EVENT_TYPES.map((t) => ({ value: t, label: t }));
  return [{ value: MASKED_FAULT, label: 'All fault events' }, ...classes, { value: MODEL_CHANGE, label: 'Model changes' }];
}

/**
 * Which current a PostEventRef qualifies (spec 3.4): Current Reset moves the reset current into
 * PrefaultCurrent (`Reset Current (A)`); Fault Like and Fault <50 report the load 15 s after the event in
 * RecoverCurrent (`Load 15s After Event (A)`). Unknown references qualify nothing and are shown as they are.
 */
export function postEventRefField(eventType: string): 'PrefaultCurrent' | 'RecoverCurrent' | null {
  if (eventType === 'Current Reset') return 'PrefaultCurrent';
  if (eventType === 'Fault Like' || eventType === 'Fault <50') return 'RecoverCurrent';
  return null;
}
