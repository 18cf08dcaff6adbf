// How Critical faults ranks and labels an event for triage (docs/decisions.md#portal): a severity with a
// colour and a word (never colour alone), and the spec 3.4 post-event reference as the label of the value it
// qualifies. A masked organisation's events all read `Fault` (the class is hidden), so they rank as the
// worst class: a crew must not under-react to a fault whose kind it cannot see.
import { FAULT_EVENTS, FAULT_EVENT_TYPES, severityOf as faultSeverity, type FaultSeverity } from '../../domain/fault-events';
import { MASKED_FAULT } from '../../domain/fault-masking';
import { POST_EVENT_REF_LOAD_15S, POST_EVENT_REF_RESET_CURRENT } from '../../domain/event-presentation';

export type Severity = FaultSeverity | 'Info';

export const SEVERITY_COLOURS: Record<Severity, string> = { Critical: '#b71c1c', High: '#c43e00', Medium: '#8a6d00', Info: '#455a64' };

export function severityOf(eventType: string): Severity {
  if (eventType === MASKED_FAULT) return 'Critical';
  return faultSeverity(eventType) ?? 'Info';
}

/** `Critical (PFault, SOTF, FAULT_INITIAL), High (...), Medium (...)`, from the one table (domain/fault-events.ts). */
export function severityLegend(): string {
  const order: FaultSeverity[] = ['Critical', 'High', 'Medium'];
  return order.map((s) => `${s} (${FAULT_EVENTS.filter((e) => e.severity === s).map((e) => e.type).join(', ')})`).join(', ');
}

export const MODEL_CHANGE = 'Model Change';

/** The event-type choices of the Critical faults filter: every fault, each class (unless masked), model changes. */
export function eventTypeChoices(masked: boolean): { value: string; label: string }[] {
  const classes = masked ? [] : FAULT_EVENT_TYPES.map((t) => ({ value: t, label: t }));
  return [{ value: MASKED_FAULT, label: 'All fault events' }, ...classes, { value: MODEL_CHANGE, label: 'Model changes' }];
}

/**
 * Which current a PostEventRef qualifies (spec 3.4; the server decides which events carry one,
 * domain/event-presentation.ts): `Reset Current (A)` is the reset current moved into PrefaultCurrent,
 * `Load 15s After Event (A)` the load 15 s after the event in RecoverCurrent. Unknown references qualify
 * nothing and are shown as they are.
 */
export function postEventRefField(postEventRef: string | null): 'PrefaultCurrent' | 'RecoverCurrent' | null {
  if (postEventRef === POST_EVENT_REF_RESET_CURRENT) return 'PrefaultCurrent';
  if (postEventRef === POST_EVENT_REF_LOAD_15S) return 'RecoverCurrent';
  return null;
}
