// The event types that say "this indicator saw fault current" (spec 3.4), and what each one means, in one
// table (docs/decisions.md#fault-facts). Notify reports exactly these, incidents count them as trips,
// critical-data lists them, the mask hides them, retention counts them, and the Fault <50 adjustment and
// fault-compute read their shift roles from here: a new fault type is one row.

/** Duration class of a trip: a temporary fault cleared itself; a permanent one, or closing onto a fault, did not. */
export type FaultClass = 'momentary' | 'permanent';

/** How urgently a crew must look (the portal's triage; a masked `Fault` ranks as the worst). */
export type FaultSeverity = 'Critical' | 'High' | 'Medium';

export interface FaultEventFacts {
  type: string;
  severity: FaultSeverity;
  /** null: the type says nothing about duration (Fault Like, Overcurrent, the DM1 initial fault). */
  faultClass: FaultClass | null;
  /**
   * Its part in the Fault <50 adjustment (spec 3.4 last paragraph): `early` is moved back 30 s when a
   * `trigger` of the same device follows within 6 minutes.
   */
  shift: 'early' | 'trigger' | null;
}

// In the order the migrations' partial indexes and incident trigger spell them (a tie test holds them equal).
export const FAULT_EVENTS: readonly FaultEventFacts[] = [
  // Critical: the line stays out (a permanent fault, a switch onto a fault, a DM1 device's initial fault);
  // High: the line came back, but something tripped it; Medium: fault-like readings below the threshold.
  { type: 'PFault', severity: 'Critical', faultClass: 'permanent', shift: 'trigger' },
  { type: 'TFault', severity: 'High', faultClass: 'momentary', shift: 'trigger' },
  { type: 'SOTF', severity: 'Critical', faultClass: 'permanent', shift: 'trigger' },
  { type: 'Fault Like', severity: 'Medium', faultClass: null, shift: null },
  { type: 'Fault <50', severity: 'Medium', faultClass: 'momentary', shift: 'early' },
  { type: 'Overcurrent', severity: 'High', faultClass: null, shift: null },
  { type: 'FAULT_INITIAL', severity: 'Critical', faultClass: null, shift: null },
];

/** Every fault event type, in the table's order. */
export const FAULT_EVENT_TYPES: readonly string[] = FAULT_EVENTS.map((e) => e.type);
const BY_TYPE = new Map(FAULT_EVENTS.map((e) => [e.type, e]));
const LOWER = new Set(FAULT_EVENT_TYPES.map((t) => t.toLowerCase()));

/** Whether an event type names a fault (case-insensitive: query values arrive as the caller typed them). */
export const isFaultEventType = (t: unknown): boolean => typeof t === 'string' && LOWER.has(t.toLowerCase());

/** The triage severity of a fault event type, or null for any other type. */
export const severityOf = (eventType: string): FaultSeverity | null => BY_TYPE.get(eventType)?.severity ?? null;

/** The duration class of a trip's event type, or null. */
export const faultClassOf = (eventType: string): FaultClass | null => BY_TYPE.get(eventType)?.faultClass ?? null;

/** The type moved back by the adjustment (`Fault <50`). */
export const SHIFT_EARLY_TYPE: string = FAULT_EVENTS.find((e) => e.shift === 'early')!.type;
/** The types that pull a preceding `Fault <50` back. */
export const SHIFT_TRIGGER_TYPES: ReadonlySet<string> = new Set(FAULT_EVENTS.filter((e) => e.shift === 'trigger').map((e) => e.type));
/** Every type the adjustment reads (fault-compute loads a device's recent events of these). */
export const SHIFT_TYPES: readonly string[] = FAULT_EVENTS.filter((e) => e.shift !== null).map((e) => e.type);

/**
 * `('a', 'b')` for SQL text: constants of this module spelled in (never caller input), so the planner can
 * match the partial indexes of migration 0004, which a `$n` array parameter would not.
 */
export function sqlTypeList(types: readonly string[]): string {
  return `(${types.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ')})`;
}
