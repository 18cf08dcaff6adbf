// The columns of the reliability export (GET /api/reliability/export, docs/reliability-export.md lists them
// with these rules; test/docs/reliability-export.test.ts checks the page against this table). One owner: the
// CSV header, the Parquet schema and the page all come from here.
import { FAULT } from '../../domain/alarm-kinds.js';
import type { ShownSection } from '../../domain/section-reach.js';
import { maskText } from '../../domain/fault-masking.js';
import { spreadsheetSafe } from '../../plumbing/csv.js';
import type { ArchiveColumn, ArchiveValue } from '../../storage/archive-file.js';

/** An incident as the export query reads it (api/reliability/export.ts). */
export interface ExportSource {
  id: string; PowerLineID: string; powerLineName: string | null; status: string; kind: string;
  first_trip_at: Date; last_trip_at: Date; restored_device_at: Date | null; sections: ShownSection[]; indicators: string[]; section_customers: number | null;
  cause: string | null; major_event: boolean | null; cause_note: string | null; cause_set_by: string | null; cause_set_at: Date | null;
}

export type ExportValue = string | number | boolean | Date | null;

export interface ExportColumn extends ArchiveColumn {
  /** What the value is and how it is made (the docs page repeats it). */
  rule: string;
  value(r: ExportSource, masked: boolean): ExportValue;
}

const seconds = (from: Date, to: Date | null) => (to === null ? null : Math.max(0, (to.getTime() - from.getTime()) / 1000));

export const EXPORT_COLUMNS: readonly ExportColumn[] = [
  { name: 'incidentId', kind: 'int64', rule: 'The incident\'s id, as in GET /api/incidents.', value: (r) => Number(r.id) },
  { name: 'powerLineId', kind: 'text', rule: 'The power line\'s id (the import\'s PowerLineID).', value: (r) => r.PowerLineID },
  { name: 'powerLineName', kind: 'text', rule: 'The power line\'s name; empty when it has none.', value: (r) => r.powerLineName },
  { name: 'sections', kind: 'text', rule: 'The faulted sections\' labels (the import\'s Section of the indicator above each, else "below <name>", or "Section below an indicator outside your reach" when that indicator is outside the caller\'s reach), joined by "; "; empty while not located.', value: (r) => r.sections.map((s) => `${s.label} (phase ${s.phase})`).join('; ') },
  { name: 'sectionCount', kind: 'int32', rule: 'How many faulted sections (0 while not located; two laterals at once are two).', value: (r) => r.sections.length },
  { name: 'kind', kind: 'text', rule: '`permanent`, `momentary` or `unknown` (docs/incidents.md); `fault` for every incident of an organisation that masks fault details.', value: (r, masked) => (masked ? FAULT : r.kind) },
  { name: 'status', kind: 'text', rule: '`open`, `located`, `restored` or `closed` at the time of the export.', value: (r) => r.status },
  { name: 'firstTripAt', kind: 'timestamp', rule: 'Device time of the first trip (UTC); `from` and `to` select on it.', value: (r) => r.first_trip_at },
  { name: 'lastTripAt', kind: 'timestamp', rule: 'Device time of the last trip that joined the incident (UTC).', value: (r) => r.last_trip_at },
  { name: 'restoredAt', kind: 'timestamp', rule: 'Device time of restoration (UTC): for a momentary incident its last trip (the line reclosed); otherwise the latest, over the tripped indicators, of each one\'s first check-in after its trip without a fault (the rule that restored it); for an organisation that masks fault details, that check-in rule for every incident (the last trip would name the momentary ones). Empty while not restored.', value: (r) => r.restored_device_at },
  { name: 'durationSeconds', kind: 'double', rule: 'restoredAt minus firstTripAt in seconds (device clocks); empty while not restored.', value: (r) => seconds(r.first_trip_at, r.restored_device_at) },
  { name: 'indicators', kind: 'text', rule: 'IMEIs of the tripped indicators in the caller\'s reach, in trip order, separated by spaces.', value: (r) => r.indicators.join(' ') },
  { name: 'indicatorCount', kind: 'int32', rule: 'How many tripped indicators are in the caller\'s reach (trippedDevices of GET /api/incidents).', value: (r) => r.indicators.length },
  { name: 'sectionCustomers', kind: 'int32', rule: 'The customers the import gives for the faulted sections (SectionCustomers of the indicator above each section), summed; empty when not located or when a section has no count. Customers of the sections, not customers interrupted: the device that opened may be further upstream, and every section below loses supply too.', value: (r) => r.section_customers },
  { name: 'cause', kind: 'text', rule: 'The cause last recorded by an operator, one id of the organisation\'s list (GET /api/incident-causes); empty when none was recorded.', value: (r) => r.cause },
  { name: 'causeNote', kind: 'text', rule: 'The operator\'s note with that cause; empty when none.', value: (r) => r.cause_note },
  { name: 'causeSetBy', kind: 'text', rule: 'Who recorded that cause (the user\'s e-mail).', value: (r) => r.cause_set_by },
  { name: 'causeSetAt', kind: 'timestamp', rule: 'When that cause was recorded (service clock, UTC).', value: (r) => r.cause_set_at },
  { name: 'majorEvent', kind: 'bool', rule: 'The operator\'s flag, recorded with the cause, that the incident belongs to a major event; false when no cause was recorded. Not IEEE 1366\'s 2.5-beta major event day, which needs customer minutes faultline does not have.', value: (r) => r.major_event ?? false },
];

/** How docs/reliability-export.md names each column type: the Parquet type, and in the CSV the text of it. */
export const COLUMN_TYPE_NAMES: Record<ExportColumn['kind'], string> = {
  int64: 'integer (INT64)', int32: 'integer (INT32)', double: 'number (DOUBLE)', text: 'text (UTF-8)', bool: 'boolean', timestamp: 'timestamp (UTC, microseconds)',
};

/** The row of the docs page's column table (test/docs/reliability-export.test.ts finds each one there). */
export const docsRow = (c: ExportColumn): string => `| \`${c.name}\` | ${COLUMN_TYPE_NAMES[c.kind]} | ${c.rule.replaceAll('|', '\\|')} |`;

/** The text cells a masked organisation reads are masked by word here: a Parquet file is not text the API's policy could read. */
function cellsOf(r: ExportSource, masked: boolean): ExportValue[] {
  return EXPORT_COLUMNS.map((c) => {
    const v = c.value(r, masked);
    return masked && typeof v === 'string' ? maskText(v) : v;
  });
}

/** One row for the CSV: timestamps as ISO 8601 UTC, booleans as true / false, empty for none, text spreadsheet-safe. */
export function csvCells(r: ExportSource, masked: boolean): (string | number | null)[] {
  return cellsOf(r, masked).map((v) => (v instanceof Date ? v.toISOString() : typeof v === 'boolean' ? String(v) : typeof v === 'string' ? spreadsheetSafe(v) : v));
}

/** One row for the Parquet file: the archive's value forms (timestamps as bigint microseconds, ids as bigint). */
export function parquetCells(r: ExportSource, masked: boolean): ArchiveValue[] {
  return cellsOf(r, masked).map((v, i) => (v instanceof Date ? BigInt(v.getTime()) * 1000n : EXPORT_COLUMNS[i]!.kind === 'int64' && typeof v === 'number' ? BigInt(v) : v));
}
