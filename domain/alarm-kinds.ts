// What an alarm rule can ask for (issue 20, "what"; docs/decisions.md#alarm-routing): one table, one row per
// alarm kind. A kind says where its alarms come from and what ends them:
//  - `fault-code`: raised while the device's latest ActualOngoingFault (spec 3.1) is one of `codes`, cleared
//    when a newer check-in carries a code outside them;
//  - `clock`: raised by the communication-lost clock (domain/checkin-clock.ts), cleared by the next check-in;
//  - `event`: raised by something that happened once; what ends it is the kind's own condition (a model change
//    the next check-in of the device, an incident alarm the incident's closing). Acknowledging never clears
//    an alarm: acknowledged and cleared are separate states (domain/alarm-states.ts, ISA-18.2).
// New kinds (feeder incidents, for instance) are rows here with source `event`, raised through
// alarms/raise.ts raiseEventAlarm; rules, API, import and portal read this table and need no change.
import { FAULT_CODE_CLASSES as C } from './ongoing-fault-codes.js';

export type AlarmSource = 'fault-code' | 'clock' | 'event';
export type AlarmClass = 'operations' | 'maintenance';
/** ISA-18.2's few priorities: how soon an operator must act (the board's order, domain/board.ts). */
export type AlarmPriority = 'critical' | 'high' | 'medium' | 'low';

export interface AlarmKind {
  id: string;
  /** What messages and the portal call it. */
  label: string;
  source: AlarmSource;
  /** ActualOngoingFault codes of a `fault-code` kind. */
  codes: readonly number[];
  /** It names a class of fault, so a masked organisation reads it as `fault` (docs/decisions.md#masking). */
  namesClass?: true;
  /** Its class when no rule gave it one (alarms/router.ts stores the matching rule's class). */
  defaultClass: AlarmClass;
  /** Its priority on the board; a masked organisation's class kinds all read as one (domain/board.ts). */
  priority: AlarmPriority;
}

export const ALARM_KINDS: readonly AlarmKind[] = [
  { id: 'permanent', namesClass: true, label: 'Permanent fault', source: 'fault-code', defaultClass: 'operations', priority: 'critical', codes: C.permanent },
  { id: 'temporary', namesClass: true, label: 'Temporary fault', source: 'fault-code', defaultClass: 'operations', priority: 'medium', codes: C.temporary },
  { id: 'over-current', namesClass: true, label: 'Over current', source: 'fault-code', defaultClass: 'operations', priority: 'high', codes: C.overCurrent },
  { id: 'current-reset', namesClass: true, label: 'Current reset', source: 'fault-code', defaultClass: 'operations', priority: 'medium', codes: C.currentReset },
  { id: 'dm1-port-fault', namesClass: true, label: 'DM1 port fault', source: 'fault-code', defaultClass: 'operations', priority: 'high', codes: C.dm1PortFault },
  { id: 'low-battery', label: 'Low battery', source: 'fault-code', defaultClass: 'maintenance', priority: 'low', codes: C.lowBattery },
  { id: 'communication-lost', label: 'Communication lost', source: 'clock', defaultClass: 'operations', priority: 'high', codes: [] },
  { id: 'model-change', label: 'Model change', source: 'event', defaultClass: 'maintenance', priority: 'low', codes: [] },
  // Feeder incidents (incidents/alarms.ts): one alarm per fault, raised by the incident worker.
  { id: 'incident-opened', label: 'Incident opened', source: 'event', defaultClass: 'operations', priority: 'critical', codes: [] },
  { id: 'incident-located', label: 'Incident located', source: 'event', defaultClass: 'operations', priority: 'critical', codes: [] },
  { id: 'incident-restored', label: 'Incident restored', source: 'event', defaultClass: 'operations', priority: 'medium', codes: [] },
  // Hot spots (incidents/recurring-section.ts, domain/recurring-section.ts): a section that faults again and again.
  { id: 'recurring-section', label: 'Recurring faults in a section', source: 'event', defaultClass: 'maintenance', priority: 'low', codes: [] },
  // Possible de-energised sections (fleet-health/deenergised-sections.ts): line-powered indicators silent below one point, no trip.
  { id: 'deenergised-section', label: 'Possible de-energised section', source: 'event', defaultClass: 'operations', priority: 'high', codes: [] },
];

export const ALARM_KIND_IDS: readonly string[] = ALARM_KINDS.map((k) => k.id);
export const ALARM_CLASSES: readonly AlarmClass[] = ['operations', 'maintenance'];
export const COMMUNICATION_LOST = 'communication-lost';
export const MODEL_CHANGE = 'model-change';
export const INCIDENT_OPENED = 'incident-opened';
export const INCIDENT_LOCATED = 'incident-located';
export const INCIDENT_RESTORED = 'incident-restored';
export const RECURRING_SECTION = 'recurring-section';
export const DEENERGISED_SECTION = 'deenergised-section';

/**
 * Kinds of earlier releases and what they are now (migration 0013 rewrote the stored ones): an import file
 * that still names one keeps working.
 */
export const RETIRED_KINDS: Readonly<Record<string, string>> = { 'probable-temporary': 'temporary' };
export const currentKindId = (id: string): string => RETIRED_KINDS[id] ?? id;

const BY_ID = new Map(ALARM_KINDS.map((k) => [k.id, k]));
const BY_CODE = new Map(ALARM_KINDS.flatMap((k) => k.codes.map((c) => [c, k] as const)));

export const alarmKind = (id: string): AlarmKind | undefined => BY_ID.get(id);
export const alarmLabel = (id: string): string => BY_ID.get(id)?.label ?? id;

/** The `fault-code` kind a fault code raises, or null (None, Decision, Disconnected, No Data, unknown). */
export function kindOfCode(code: number | null): string | null {
  return code === null ? null : BY_CODE.get(code)?.id ?? null;
}

/** Kinds whose alarms end when a newer check-in no longer carries their code. */
export const FAULT_CODE_KINDS: readonly string[] = ALARM_KINDS.filter((k) => k.source === 'fault-code').map((k) => k.id);
/**
 * The one kind a masked organisation reads and routes by (docs/decisions.md#masking): it stands for every
 * kind that names a class of fault, so a rule naming it matches each of them. Low battery, communication lost,
 * model change and the incident kinds name no class and stay themselves.
 */
export const FAULT = 'fault';
export const FAULT_LABEL = 'Fault';
export const FAULT_CLASS_KINDS: readonly string[] = ALARM_KINDS.filter((k) => k.namesClass).map((k) => k.id);
export const isFaultClassKind = (id: unknown): boolean => typeof id === 'string' && FAULT_CLASS_KINDS.includes(currentKindId(id));
/** The kinds a rule may name: every kind, and `fault`. */
export const RULE_KIND_IDS: readonly string[] = [...ALARM_KIND_IDS, FAULT];

/** A rule's kinds as a masked organisation reads them: every class kind becomes the one `fault`. */
export function maskedRuleKinds(kinds: readonly string[]): string[] {
  return [...new Set(kinds.map((k) => (isFaultClassKind(k) ? FAULT : k)))];
}

/** Whether a rule naming `ruleKinds` covers an alarm of `kind` (`fault` covers every class kind). */
export const kindCovered = (ruleKinds: readonly string[], kind: string): boolean =>
  ruleKinds.includes(kind) || (isFaultClassKind(kind) && ruleKinds.includes(FAULT));

/** The kinds of the feeder incidents' alarms: the board shows the incident itself instead (domain/board.ts). */
export const INCIDENT_ALARM_KINDS: readonly string[] = [INCIDENT_OPENED, INCIDENT_LOCATED, INCIDENT_RESTORED];
