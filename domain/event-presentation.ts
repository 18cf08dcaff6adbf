// Event-specific response transformations (spec 3.4 table, spec 2.3 "fields added only in the API
// response", spec 8 "PFault threshold minimum"). Applied when an event is read, never when it is stored.

export const PFAULT_THRESHOLD_MIN = 9;
export const POST_EVENT_REF_RESET_CURRENT = 'Reset Current (A)';
export const POST_EVENT_REF_LOAD_15S = 'Load 15s After Event (A)';

/** The event fields the transformations read or change. */
export interface PresentableEvent {
  EventType: string;
  PrefaultCurrent: number | null;
  FaultCurrent: number | null;
  RecoverCurrent: number | null;
}

/** `''` is the spec's "cleared (empty)": the field is present and empty, not null. */
export type Cleared = '';

export type PresentedEvent<E extends PresentableEvent> = Omit<E, 'PrefaultCurrent' | 'FaultCurrent' | 'RecoverCurrent'> & {
  PrefaultCurrent: number | null;
  FaultCurrent: number | null | Cleared;
  RecoverCurrent: number | null | Cleared;
  PermanentFaultResetCurrentThreshold: number | null;
  PostEventRef: string | null;
};

/**
 * ceil(PrefaultCurrent / 2), at least 9 (spec 3.4, 8). Decision: no PrefaultCurrent gives null rather than
 * the minimum, so a missing reading is not shown as a threshold.
 */
export function permanentFaultResetCurrentThreshold(prefaultCurrent: number | null): number | null {
  if (prefaultCurrent === null) return null;
  return Math.max(PFAULT_THRESHOLD_MIN, Math.ceil(prefaultCurrent / 2));
}

/**
 * The API shape of one event (standard table). Rows of spec 3.4:
 * - PFault: PermanentFaultResetCurrentThreshold = ceil(PrefaultCurrent / 2), minimum 9
 * - Current Reset: PrefaultCurrent takes FaultCurrent, FaultCurrent cleared, PostEventRef
 *   `Reset Current (A)`, and the threshold too, computed from the new PrefaultCurrent (the reset current;
 *   decision: the spec does not say which of the two)
 * - SOTF: RecoverCurrent cleared
 * - Fault Like, Fault <50: PostEventRef `Load 15s After Event (A)`
 * Every other type: unchanged, with the two added fields null, so every event has the same keys.
 */
export function presentEvent<E extends PresentableEvent>(event: E): PresentedEvent<E> {
  const { EventType: type, PrefaultCurrent: prefault, FaultCurrent: fault, RecoverCurrent: recover } = event;
  return {
    ...event,
    PrefaultCurrent: presentedPrefaultCurrent(type, prefault, fault),
    FaultCurrent: presentedFaultCurrent(type, fault),
    RecoverCurrent: presentedRecoverCurrent(type, recover),
    PermanentFaultResetCurrentThreshold: presentedThreshold(type, prefault, fault),
    PostEventRef: presentedPostEventRef(type),
  };
}

// The same rules field by field, for a writer that reads them straight out of a row (api/device-records/row-json.ts)
// without building the event first.

export function presentedPrefaultCurrent(type: string, prefault: number | null, fault: number | null): number | null {
  return type === 'Current Reset' ? fault : prefault;
}

export function presentedFaultCurrent(type: string, fault: number | null): number | null | Cleared {
  return type === 'Current Reset' ? '' : fault;
}

export function presentedRecoverCurrent(type: string, recover: number | null): number | null | Cleared {
  return type === 'SOTF' ? '' : recover;
}

export function presentedThreshold(type: string, prefault: number | null, fault: number | null): number | null {
  if (type === 'PFault') return permanentFaultResetCurrentThreshold(prefault);
  if (type === 'Current Reset') return permanentFaultResetCurrentThreshold(fault);
  return null;
}

export function presentedPostEventRef(type: string): string | null {
  if (type === 'Current Reset') return POST_EVENT_REF_RESET_CURRENT;
  if (type === 'Fault Like' || type === 'Fault <50') return POST_EVENT_REF_LOAD_15S;
  return null;
}
