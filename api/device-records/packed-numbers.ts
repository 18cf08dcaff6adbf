// A page's double precision columns read as one float8[] in its text form (`{1.5,NULL,-2}`) and each number written
// into the answer as the text Postgres sent (docs/decisions.md#numbers-packed-into-one-column). pg builds each field
// of a row on its own (its slice of the message, a text decode, a parser call) and the writer turned each parsed
// number back into text: reading load-history's 50 rows of 29 columns cost the API about 0.84 ms of CPU in a probe.
// Postgres writes each element with the column's own output function (float8out: by default the shortest digits
// that read back exactly, as JavaScript's String does; where it writes plain notation, JavaScript does too), so the
// text is the JSON the writer wrote from the parsed number; the few spellings that differ are made as before
// (test/api/packed-numbers.test.ts, and test/integration/api/packed-numbers.test.ts against Postgres at every
// extra_float_digits).
import type { WrittenCell } from './row-json.js';

/** One item of a select list: its SQL, and whether it is a double precision column to pack. */
export interface SelectItem { sql: string; float8?: boolean }

/** A select list with its double precision items packed, and how a row read with it is set back to the plain list's shape. */
export interface PackedSelect {
  selectList: string;
  /**
   * The row in the plain select list's order, each packed column holding its number's JSON text (write it with
   * numberText); columns selected after the list (a keyset cursor's) stay at its end.
   */
  unpack(row: readonly unknown[]): unknown[];
}

/**
 * The JSON text jsonValue (row-json.ts) writes of the number pg's parser (parseFloat) reads from one element of a
 * float8[]'s text: `null` for NULL, NaN and the infinities (and a text past the largest double); exponents and a
 * negative zero as JavaScript spells them.
 * @example jsonNumberText('1.5'); // '1.5'
 * @example jsonNumberText('1e-05'); // '0.00001'
 */
export function jsonNumberText(element: string): string {
  if (element === 'NULL' || element === 'NaN' || element === 'Infinity' || element === '-Infinity') return 'null';
  if (element === '-0' || element.includes('e')) {
    // With extra_float_digits below 1, the largest doubles are written rounded up past the largest double.
    const n = Number(element);
    return Number.isFinite(n) ? String(n) : 'null';
  }
  return element;
}

/**
 * The elements of a float8[]'s text, each as jsonNumberText. Numbers are never quoted in an array's text.
 * @example unpackNumbers('{1.5,NULL,-2}'); // ['1.5', 'null', '-2']
 */
export function unpackNumbers(text: string): string[] {
  if (text === '{}') return [];
  return text.slice(1, -1).split(',').map(jsonNumberText);
}

/** The writer's cell of a packed column at `i` of the unpacked row: its JSON text as it is. */
export const numberText = (i: number): WrittenCell<unknown> => ({ text: (row) => row[i] as string });

/**
 * `items` as a select list with every double precision item in one `array[...]::text` column, at the place of the
 * first of them (without any, the plain list).
 * @example packedSelect([{ sql: 'c."IMEINumber"' }, { sql: 'c."A"', float8: true }, { sql: 'c."B"', float8: true }]).selectList;
 *   // 'c."IMEINumber", array[c."A", c."B"]::text'
 */
export function packedSelect(items: readonly SelectItem[]): PackedSelect {
  const packed = items.filter((item) => item.float8);
  if (packed.length === 0) return { selectList: items.map((item) => item.sql).join(', '), unpack: (row) => row as unknown[] };
  const first = items.findIndex((item) => item.float8);
  const received = items.filter((item, i) => !item.float8 || i === first)
    .map((item) => (item.float8 ? `array[${packed.map((p) => p.sql).join(', ')}]::text` : item.sql));
  // Each plain column's source: the received column's index, or -(k + 1) for the k-th packed number.
  let numbers = 0;
  let plainAt = 0;
  const source = items.map((item, i) => {
    if (item.float8) return -(++numbers);
    const at = plainAt + (i > first ? 1 : 0);
    plainAt++;
    return at;
  });
  const receivedColumns = received.length;
  return {
    selectList: received.join(', '),
    unpack(row) {
      const values = unpackNumbers(row[first] as string);
      const out = source.map((s) => (s >= 0 ? row[s] : values[-s - 1]));
      for (let i = receivedColumns; i < row.length; i++) out.push(row[i]);
      return out;
    },
  };
}
