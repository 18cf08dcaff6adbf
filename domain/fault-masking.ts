// Spec 3.5 and its principle (docs/decisions.md#masking): an organisation with MaskFaultDetails sees that a
// fault exists, never which class, on every reader meant for people. These are the rules, pure, for any answer
// shape; api/fault-mask-policy.ts applies them to every query and every answer of the authenticated API (so no
// endpoint can forget them), and domain/alarm-routing-plan.ts to the messages sent to people. The integration outputs
// (DNP3, MultiSpeak, dnp3OrganizationDevices) serve the utility's own systems and never come here.
import { ALARM_KINDS, FAULT, FAULT_CLASS_KINDS, FAULT_LABEL, RETIRED_KINDS, alarmLabel, isFaultClassKind } from './alarm-kinds.js';
import { presentEvent } from './event-presentation.js';
import { FAULT_EVENT_TYPES, FAULT_EVENTS, isFaultEventType } from './fault-events.js';
import { INCIDENT_KINDS, RESTORED_REASONS } from './incident-rules.js';
import { FAULT_CODE_CLASSES, ONGOING_FAULT_TEXT } from './ongoing-fault-codes.js';

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
  RecoverCurrent: 'null on every fault event (spec 3.4 clears it for SOTF only: a number would tell the others from SOTF)',
} as const;

/**
 * The fields spec 3.4 presents differently for some fault event type (SOTF clears RecoverCurrent, PFault computes
 * a threshold, Fault Like and Fault <50 name a PostEventRef), read from presentEvent itself with one stored event
 * presented as each type: a rule added there is covered here without a list to remember. Under the mask every
 * fault event carries each of them null, so the null fields of an answer never tell one class from another
 * (issue 41 finding 8).
 */
export const TYPE_SHAPED_FIELDS: ReadonlySet<string> = (() => {
  const stored = { PrefaultCurrent: 101, FaultCurrent: 202, RecoverCurrent: 303 };
  const presented = FAULT_EVENT_TYPES.map((EventType) => presentEvent({ EventType, ...stored }) as Record<string, unknown>);
  const fields = Object.keys(presented[0]!).filter((k) => k !== 'EventType');
  return new Set(fields.filter((k) => presented.some((p) => p[k] !== presented[0]![k])));
})();

/** Beyond the device records: the other readers' fields the mask changes (docs/decisions.md#masking repeats it). */
export const MASKED_READER_FIELDS = {
  eventType: 'Fault for every fault event type (incident devices and timeline trips)',
  codeText: 'None for code 0, else Fault (alarms)',
  kind: 'fault for an incident kind (permanent, momentary, unknown) and for every alarm kind that names a class',
  incidentKind: 'fault',
  id: 'fault for an alarm kind that names a class (GET /api/alarm-kinds; the kinds then read as one)',
  label: 'Fault for the label of an alarm kind that names a class',
  reason: `restored for both restoring reasons of an incident (one names the class)`,
} as const;

export const MASKED_RESTORED_REASON = 'restored';
const RESTORED = new Set<string>(Object.values(RESTORED_REASONS));
const FAULT_KIND_LABELS = new Set(FAULT_CLASS_KINDS.map(alarmLabel));
const CLASS_KIND_VALUES = new Set<string>([...INCIDENT_KINDS, ...FAULT_CLASS_KINDS]);

/**
 * Words that name a class, wherever they stand in a text (free text, CSV, a future field): the last net under
 * the field rules. Longest first, whole words, any case. Built from the tables that own them, so a new code,
 * kind or event type is masked without a list here to remember: the strings of the codes of every alarm kind
 * that names a class (domain/ongoing-fault-codes.ts), those kinds' ids (and retired ones) and their words as a
 * phrase ending in "fault" (`dm1-port-fault` -> "dm1 port fault", `permanent` -> "permanent fault"), the fault
 * event types and their duration classes (domain/fault-events.ts), alone and with "fault". `Current Reset` is
 * left standing: it is also the event type that names no fault (spec 3.4), so neither its code string nor its
 * kind's words are masked (its id `current-reset` is); nor are field names such as
 * PermanentFaultResetCurrentThreshold (no word boundary).
 */
const regexText = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const asFault = (words: string) => (/ fault$/i.test(words) ? words : `${words} fault`);
const CLASS_NAMING_KINDS = ALARM_KINDS.filter((k) => k.namesClass);
const NAMES_NO_FAULT = new Set<number>(FAULT_CODE_CLASSES.currentReset);
const DURATION_CLASSES = [...new Set(FAULT_EVENTS.map((e) => e.faultClass).filter((c) => c !== null))];
const CLASS_TERMS = [...new Set([
  ...CLASS_NAMING_KINDS.flatMap((k) => k.codes).filter((c) => !NAMES_NO_FAULT.has(c)).map((c) => ONGOING_FAULT_TEXT.get(c)!),
  ...FAULT_CLASS_KINDS, ...Object.keys(RETIRED_KINDS),
  ...[...CLASS_NAMING_KINDS.filter((k) => !k.codes.some((c) => NAMES_NO_FAULT.has(c))).map((k) => k.id), ...Object.keys(RETIRED_KINDS)]
    .map((id) => asFault(id.replace(/-/g, ' '))),
  ...FAULT_EVENT_TYPES, ...DURATION_CLASSES, ...DURATION_CLASSES.map(asFault),
].map((t) => t.toLowerCase()))].map(regexText).sort((a, b) => b.length - a.length);
const CLASS_WORDS = new RegExp(`(?<![A-Za-z0-9_])(?:${CLASS_TERMS.join('|')})(?![A-Za-z0-9_])`, 'gi');

/** A text with every word that names a class replaced by `Fault`. */
export const maskText = (text: string): string => text.replace(CLASS_WORDS, MASKED_FAULT);
/** Whether a text names a class (the test of every reader uses the same words). */
export const namesFaultClass = (text: string): boolean => new RegExp(CLASS_WORDS.source, 'i').test(text);

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
  if (Array.isArray(value)) return value.map((v) => noneOrFault(field, v, names));
  const none = field === 'FaultType' ? names.faultTypeNone : MASKED_NONE;
  return value === none ? MASKED_NONE : MASKED_FAULT;
}

function maskObject(row: Record<string, unknown>, names: UnmaskedNames): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const faultEvent = isFaultEventType(row.EventType ?? row.eventType);
  for (const [key, value] of Object.entries(row)) {
    if (NONE_OR_FAULT_FIELDS.has(key)) out[key] = noneOrFault(key, value, names);
    else if (key === 'codeText') out[key] = noneOrFault(key, value, names);
    else if ((key === 'EventType' || key === 'eventType') && faultEvent) out[key] = MASKED_FAULT;
    else if ((key === 'kind' || key === 'incidentKind' || key === 'id') && typeof value === 'string' && CLASS_KIND_VALUES.has(value)) out[key] = FAULT;
    else if (key === 'label' && typeof value === 'string' && FAULT_KIND_LABELS.has(value)) out[key] = FAULT_LABEL;
    else if (key === 'reason' && typeof value === 'string' && RESTORED.has(value)) out[key] = MASKED_RESTORED_REASON;
    else if (key === 'PermanentFaultResetCurrentThreshold' || key === 'PostEventRef') out[key] = null;
    else if (faultEvent && TYPE_SHAPED_FIELDS.has(key)) out[key] = null;
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

/**
 * A list after the mask: alarm kinds that collapsed into `fault` are one entry (one string, one object of
 * that `id`); count buckets of a None / Fault field merge.
 */
function collapse(items: unknown[]): unknown[] {
  const seen = new Set<unknown>();
  const once = items.filter((x) => {
    const key = x === FAULT ? FAULT : typeof x === 'object' && x !== null && (x as Record<string, unknown>).id === FAULT ? `id:${FAULT}` : undefined;
    if (key === undefined) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return mergeCounts(once);
}

/**
 * An answer as a masked caller may read it, any shape (page, list, object, nested), of any reader: device
 * records, alarms, alarm kinds and rules, incidents and their timelines, and whatever is added later (the
 * field rules above, then maskText on every other text).
 */
export function maskFaultClass(value: unknown, names: UnmaskedNames): unknown {
  if (Array.isArray(value)) return collapse(value.map((v) => (isFaultClassKind(v) ? FAULT : maskFaultClass(v, names))));
  if (typeof value === 'string') return maskText(value);
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

/** A query's parameters as sent (a key may repeat). */
export type RawParameters = Record<string, readonly string[]>;

const parseJson = (text: string): unknown => { try { return JSON.parse(text); } catch { return undefined; } };
const scalars = (v: unknown): (string | number | boolean)[] => (Array.isArray(v) ? v : [v]).filter((x): x is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof x));
const FILTER_KEY = /^filterBy\[([^[\]]+)\](?:\[([^[\]]+)\])?$/;

/**
 * The query of any endpoint, judged for a masked caller before the endpoint reads it: the sort keys and filters
 * of the read interface (sortBy, filterBy as JSON or as filterBy[field][op] keys) by maskedQueryProblem, and
 * every other parameter's value must not name a class (a `kind=permanent` filter added later is refused too).
 * Text the endpoint itself would refuse is left to the endpoint.
 */
export function maskedParametersProblem(raw: RawParameters): MaskProblem | null {
  const sort: { field: string }[] = [];
  const filters: { field: string; op: string; values: (string | number | boolean)[] }[] = [];
  for (const [key, values] of Object.entries(raw)) {
    for (const text of values) {
      if (key === 'sortBy') {
        const v = parseJson(text);
        for (const item of Array.isArray(v) ? v : [v]) {
          const field = (item as { field?: unknown } | null)?.field;
          if (typeof field === 'string') sort.push({ field });
        }
      } else if (key === 'filterBy') {
        const v = parseJson(text);
        if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
        for (const [field, cond] of Object.entries(v as Record<string, unknown>)) {
          if (typeof cond === 'object' && cond !== null && !Array.isArray(cond)) for (const [op, x] of Object.entries(cond)) filters.push({ field, op, values: scalars(x) });
          else filters.push({ field, op: 'eq', values: scalars(cond) });
        }
      } else if (FILTER_KEY.test(key)) {
        const [, field, op = 'eq'] = FILTER_KEY.exec(key)!;
        filters.push({ field: field!, op, values: op === 'in' ? text.split(',') : [text] });
      } else if (isFaultEventType(text) || (CLASS_KIND_VALUES.has(text.toLowerCase()) && text.toLowerCase() !== 'unknown') || namesFaultClass(text)) {
        return { parameter: key, field: key, message: `names a class of fault: ${REASON}; use "${FAULT}".` };
      }
    }
  }
  return maskedQueryProblem({ sort, filters });
}
