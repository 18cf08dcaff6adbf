// Rows -> CSV text for `COPY ... FROM STDIN (FORMAT csv)` (persist's staging, the storage lifecycle). In that format an unquoted empty field is NULL
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

export function toCsv(rows: readonly Cell[][]): string {
  let out = '';
  for (const row of rows) out += row.map(cell).join(',') + '\n';
  return out;
}
