// Rows -> CSV text for `COPY ... FROM STDIN (FORMAT csv)` (persist's staging, the storage lifecycle), and for people
// (toSpreadsheetCsv). In that format an unquoted empty field is NULL
// and a quoted "" is the empty string, so null and '' survive the trip distinctly.
/** One value of a row: what COPY and the Parquet archive (storage/archive.ts) write. */
export type Cell = string | number | boolean | null;

const NEEDS_QUOTES = /[",\r\n]/;

function cell(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'number') {
    // Validation let only finite numbers through; a NaN here is a bug, and COPY would store it silently.
    if (!Number.isFinite(value)) throw new Error(`non-finite number in a row: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value === '' || NEEDS_QUOTES.test(value) || value.trim() !== value) return `"${value.replaceAll('"', '""')}"`;
  return value;
}

/**
 * A text cell a spreadsheet would read as a formula (=, +, -, @, a tab or a carriage return first: OWASP's CSV
 * injection list) gets a leading apostrophe. Every CSV a person opens goes through it (the reliability export, the
 * fleet list, the SCADA point maps): names are typed by importers and firmware versions are reported by devices,
 * and quoting alone does not stop Excel evaluating `=HYPERLINK(...)`.
 */
export const spreadsheetSafe = (text: string): string => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

/** CSV for a person's spreadsheet: text cells spreadsheet-safe, the rest as toCsv writes them. */
export const toSpreadsheetCsv = (rows: readonly Cell[][]): string => toCsv(rows.map((row) => row.map((v) => (typeof v === 'string' ? spreadsheetSafe(v) : v))));

export function toCsv(rows: readonly Cell[][]): string {
  let out = '';
  for (const row of rows) out += row.map(cell).join(',') + '\n';
  return out;
}
