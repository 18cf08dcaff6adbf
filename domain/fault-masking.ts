// Spec 3.5 and its principle (docs/decisions.md#masking): an organisation with MaskFaultDetails sees that a
// fault exists, never which class, on the device-records interface and the portal. These are the rules, pure;
// api/device-records/routes.ts applies them to every answer and every query of that interface, the one place,
// so no endpoint can forget them. The integration outputs (DNP3, MultiSpeak, dnp3OrganizationDevices) serve
// the utility's own systems and never come here.

import { isFaultEventType } from './fault-events.js';

export const MASKED_FAULT = 'Fault';
export const MASKED_NONE = 'None';

/** Every field the mask changes, and what a masked caller reads in it (docs/decisions.md#masking repeats it). */
export const MASKED_FIELDS = {
  Ongoing_fault: 'None for code 0, else Fault',
  ActualOngoingFault: 'None for code 0, else Fault',
  FaultType: 'None for code 0, else Fault',
  EventType: 'Fault for every fault event type; other types (Current Reset, Model Change, ...) unchanged',
  PermanentFaultResetCurrentThreshold: 'null (spec 3.4 computes it for PFault and Current Reset only)',
  PostEventRef: 'null (spec 3.4 sets it for Current Reset, Fault Like and Fault <50 only)',
  FaultCurrent: 'null instead of the cleared "" on a fault event',
  RecoverCurrent: 'null instead of the cleared "" (spec 3.4 clears it for SOTF only)',
} as const;

/** Fields whose values the mask reduces to None / Fault (in answers, filters and sort keys). */
const NONE_OR_FAULT_FIELDS = new Set(['Ongoing_fault', 'ActualOngoingFault', 'FaultType']);
/** Fields nobody may sort by under the mask: the order of the hidden values would reveal them. */
const UNSORTABLE_FIELDS = new Set([...NONE_OR_FAULT_FIELDS, 'EventType']);

/** What the answers say before the mask: the text of code 0 of each None / Fault field. */
export interface UnmaskedNames {
  /** The configured FaultType string of code 0 (schemas/config/code-strings.json). */
  faultTypeNone: string;
}

function noneOrFault(field: string, value: unknown, names: UnmaskedNames): unknown {
  if (value === null || value === undefined) return value;
  const none = field === 'FaultType' ? names.faultTypeNone : MASKED_NONE;
  return value === none ? MASKED_NONE : MASKED_FAULT;
}

function maskObject(row: Record<string, unknown>, names: UnmaskedNames): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const faultEvent = isFaultEventType(row.EventType);
  for (const [key, value] of Object.entries(row)) {
    if (NONE_OR_FAULT_FIELDS.has(key)) out[key] = noneOrFault(key, value, names);
    else if (key === 'EventType' && faultEvent) out[key] = MASKED_FAULT;
    else if (key === 'PermanentFaultResetCurrentThreshold' || key === 'PostEventRef') out[key] = null;
    else if ((key === 'FaultCurrent' || key === 'RecoverCurrent') && faultEvent && value === '') out[key] = null;
    else out[key] = maskFaultClass(value, names);
  }
  return out;
}

/** `[{ActualOngoingFault: 'Permanent', count: 2}, {ActualOngoingFault: 'Temporary', count: 1}]` -> one `Fault` bucket of 3. */
function mergeCounts(items: unknown[]): unknown[] {
  const isBucket = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)
    && Object.keys(x).length === 2 && typeof (x as Record<string, unknown>).count === 'number'
    && Object.keys(x).some((k) => NONE_OR_FAULT_FIELDS.has(k));
  if (items.length === 0 || !items.every(isBucket)) return items;
  const field = Object.keys(items[0]!).find((k) => k !== 'count')!;
  const sums = new Map<unknown, number>();
  for (const b of items) sums.set(b[field], (sums.get(b[field]) ?? 0) + (b.count as number));
  return [...sums].map(([value, count]) => ({ [field]: value, count }));
}

/** A device-records answer as a masked caller may read it (any shape: page, list, object, nested). */
export function maskFaultClass(value: unknown, names: UnmaskedNames): unknown {
  if (Array.isArray(value)) return mergeCounts(value.map((v) => maskFaultClass(v, names)));
  if (value === null || typeof value !== 'object') return value;
  return maskObject(value as Record<string, unknown>, names);
}

/** The parts of a query the mask judges. */
export interface MaskableQuery {
  sort: readonly { field: string }[];
  filters: readonly { field: string; op: string; values: readonly (string | number | boolean)[] }[];
}

export interface MaskProblem { parameter: string; message: string; field: string }

const REASON = 'this organisation masks fault details';

/** Why a masked caller may not send this query (sorting or filtering that would reveal the class), or null. */
export function maskedQueryProblem(q: MaskableQuery): MaskProblem | null {
  for (const k of q.sort) {
    if (UNSORTABLE_FIELDS.has(k.field)) return { parameter: 'sortBy', field: k.field, message: `cannot sort by "${k.field}": ${REASON}, and the order would reveal the fault class.` };
  }
  for (const f of q.filters) {
    const parameter = `filterBy[${f.field}]`;
    if (NONE_OR_FAULT_FIELDS.has(f.field)) {
      const ok = ['eq', 'ne', 'in'].includes(f.op) && f.values.every((v) => typeof v === 'string' && ['none', 'fault'].includes(v.toLowerCase()));
      if (!ok) return { parameter, field: f.field, message: `takes "None" or "Fault" (eq, ne, in): ${REASON}.` };
    }
    if (f.field === 'EventType') {
      const ok = f.op !== 'contains' && f.values.every((v) => !isFaultEventType(v));
      if (!ok) return { parameter, field: f.field, message: `takes "Fault" for any fault event, or a type that names no fault (eq, ne, in): ${REASON}.` };
    }
  }
  return null;
}
