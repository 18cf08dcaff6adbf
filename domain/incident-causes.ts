// The cause of an incident (issue 43, docs/decisions.md#reliability-export): one id from the organisation's
// list, chosen by an operator. The default list follows the categories of APPA's eReliability Tracker; an
// organisation's admins may replace it (PUT /api/incident-causes). Pure: the rules of a list and of a cause.
import { namesFaultClass } from './fault-masking.js';

/** The list every organisation starts with: id and what it covers. */
export const DEFAULT_INCIDENT_CAUSES: readonly { id: string; label: string }[] = [
  { id: 'vegetation', label: 'Vegetation: trees, branches, growth' },
  { id: 'equipment', label: 'Equipment: failed or worn apparatus' },
  { id: 'animal', label: 'Animal contact' },
  { id: 'weather', label: 'Weather: wind, ice, snow, flood' },
  { id: 'lightning', label: 'Lightning' },
  { id: 'public-vehicle', label: 'Public or vehicle: dig-in, vehicle, vandalism' },
  { id: 'utility-error', label: 'Utility error: switching, work' },
  { id: 'other', label: 'Other known cause' },
  { id: 'unknown', label: 'Unknown: found no cause' },
];
export const DEFAULT_CAUSE_IDS: readonly string[] = DEFAULT_INCIDENT_CAUSES.map((c) => c.id);

export const MAX_CAUSES = 100;
export const MAX_NOTE_CHARS = 500;
/**
 * Cause records kept per incident: beyond it a new record is refused (409), never pruned, since the history is
 * the audit a regulator may ask for (docs/decisions.md#reliability-reads-paged-and-bounded).
 */
export const MAX_CAUSE_RECORDS = 100;
/** A page of an incident's cause history: 20 newest first unless `limit` says (at most 100). */
export const CAUSE_HISTORY_PAGE = { default: 20, max: 100 } as const;
const CAUSE_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

/** Why `id` cannot be a cause on a list, or null when it can. */
export function causeIdProblem(id: unknown): string | null {
  if (typeof id !== 'string' || !CAUSE_ID.test(id)) return 'must be 1 to 40 lower-case letters, digits or hyphens, starting with a letter or digit';
  // A masked organisation reads every text with class words replaced (domain/fault-masking.ts): a cause that
  // names a class would read back as another word.
  if (namesFaultClass(id.replaceAll('-', ' '))) return 'names a fault class; choose a word about the cause, not the fault';
  return null;
}

/** Problems of a whole list (empty: fine), each naming its position. */
export function causeListProblems(list: unknown): string[] {
  if (!Array.isArray(list)) return ['causes must be an array of cause ids'];
  if (list.length === 0 || list.length > MAX_CAUSES) return [`causes must hold 1 to ${MAX_CAUSES} ids`];
  const problems: string[] = [];
  const seen = new Set<unknown>();
  list.forEach((id, n) => {
    const p = causeIdProblem(id);
    if (p) problems.push(`causes[${n}] ${p}`);
    else if (seen.has(id)) problems.push(`causes[${n}] repeats "${String(id)}"`);
    seen.add(id);
  });
  return problems;
}

/** A control character other than tab and line breaks (a note is shown and exported as text). */
const hasControl = (text: string) => [...text].some((ch) => { const n = ch.codePointAt(0)!; return (n < 0x20 && n !== 9 && n !== 10 && n !== 13) || n === 0x7f; });

/** What an operator records for an incident. */
export interface CauseRecord { cause: string; majorEvent: boolean; note: string | null }

/**
 * The body of POST /api/incidents/:id/cause read against the organisation's list: the record, or the problems
 * each naming its field (an unknown cause names the allowed ones).
 */
export function readCauseRecord(body: Record<string, unknown>, allowed: readonly string[]): { record: CauseRecord } | { problems: { field: string; message: string }[] } {
  const problems: { field: string; message: string }[] = [];
  for (const key of Object.keys(body)) if (!['cause', 'majorEvent', 'note'].includes(key)) problems.push({ field: key, message: 'is not a field of a cause (cause, majorEvent, note)' });
  const { cause, majorEvent = false, note = null } = body;
  if (typeof cause !== 'string') problems.push({ field: 'cause', message: `is required: one of ${allowed.join(', ')}` });
  else if (!allowed.includes(cause)) problems.push({ field: 'cause', message: `"${cause.slice(0, 40)}" is not on the organisation's list: one of ${allowed.join(', ')}` });
  if (typeof majorEvent !== 'boolean') problems.push({ field: 'majorEvent', message: 'must be true or false' });
  if (note !== null && (typeof note !== 'string' || note.length > MAX_NOTE_CHARS || hasControl(note))) {
    problems.push({ field: 'note', message: `must be text of at most ${MAX_NOTE_CHARS} characters without control characters` });
  }
  if (problems.length) return { problems };
  return { record: { cause: cause as string, majorEvent: majorEvent as boolean, note: note === null || (note as string).trim() === '' ? null : (note as string).trim() } };
}
