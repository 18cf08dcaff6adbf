// Rows read as arrays (pg `rowMode: 'array'`) written straight into the response's JSON text
// (docs/decisions.md#reads-that-build-nothing-they-throw-away): no row object from pg, no presented object
// per row, no JSON.stringify of the page. Each route builds its writer once, at start-up, from its field list:
// the output names in API order, each with the function that reads its value out of the row by the index of
// its selected column. The text is what JSON.stringify of the presented object gives (test/api/row-json.test.ts).
// The mask of spec 3.5 still comes after, on the whole answer (api/fault-mask-policy.ts); reach is in the SQL.

/** One output field's value, read from a row of selected columns; `C`: what the route presents with (present.ts PresentContext). */
export type CellValue<C> = (row: readonly unknown[], ctx: C) => unknown;

/** Writes one row as a JSON object's text. */
export type RowWriter<C> = (row: readonly unknown[], ctx: C) => string;

/** A field whose JSON text the route writes itself from the row (a nested object, or `null`). */
export interface WrittenCell<C> { text: RowWriter<C> }

/** One output field: its name and how its value is read (or its text written) from the row. */
export type Field<C> = readonly [string, CellValue<C> | WrittenCell<C>];

/**
 * A JSON value's text; undefined is null, as the object presenters' `?? null` made it. Numbers and booleans are
 * spelled without a JSON.stringify call (a finite number's JSON text is its String; NaN and the infinities are
 * null), which most cells are: a call per cell cost more than the objects it replaced.
 */
export function jsonValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return JSON.stringify(v);
}

/**
 * The index of each selected column by name, for building a route's fields once; a name not selected
 * throws then (at start-up), never per request.
 * @example const at = columnIndex(['RecordID', 'date']); at('date'); // 1
 */
export function columnIndex(selected: readonly string[]): (name: string) => number {
  return (name) => {
    const i = selected.indexOf(name);
    if (i < 0) throw new Error(`column ${name} is not selected (${selected.join(', ')})`);
    return i;
  };
}

/** The column's value as selected (pg's: number, text, Date as its ISO text, array...). */
export const plain = (i: number): CellValue<unknown> => (row) => row[i];

/**
 * The writer of `fields`, in their order.
 * @example rowWriter([['id', plain(0)]])([7], ctx); // '{"id":7}'
 */
export function rowWriter<C>(fields: readonly Field<C>[]): RowWriter<C> {
  const keys = fields.map(([name], i) => `${i === 0 ? '{' : ','}${JSON.stringify(name)}:`);
  const texts = fields.map(([, value]): RowWriter<C> => (typeof value === 'function' ? (row, ctx) => jsonValue(value(row, ctx)) : value.text));
  if (keys.length === 0) return () => '{}';
  return (row, ctx) => {
    let out = '';
    for (let i = 0; i < keys.length; i++) out += keys[i]! + texts[i]!(row, ctx);
    return `${out}}`;
  };
}

/** A page's body as text: JSON.stringify({ data, page, limit, total, totalIsEstimate[, next] }) of the written rows. */
export function pageText(rows: readonly string[], page: { page: number; limit: number; total: number; totalIsEstimate: boolean; next?: string | null }): string {
  const next = 'next' in page ? `,"next":${jsonValue(page.next)}` : '';
  return `{"data":[${rows.join(',')}],"page":${page.page},"limit":${page.limit},"total":${jsonValue(page.total)},"totalIsEstimate":${page.totalIsEstimate}${next}}`;
}

/**
 * An answer already written as JSON text: routes.ts sends it as it is. `validUntilMs`, of a fleet answer kept while
 * the database does not change (unchanged-answers.ts): the first instant it would read otherwise by itself.
 */
export class JsonText {
  constructor(readonly text: string, readonly validUntilMs?: number) {}
}
