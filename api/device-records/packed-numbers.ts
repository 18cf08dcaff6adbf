// A page's double precision columns read as one float8[] in its text form (`{1.5,NULL,-2}`) and set back in place
// as numbers once read (docs/decisions.md#numbers-packed-into-one-column). pg builds each field of a row on its own
// (its slice of the message, a text decode, a parser call): for load-history's 50 rows of 25 numbers that was about
// half of the API's CPU for the page. Postgres writes each element with the output function it writes the column
// with (float8out), and Number() reads that text as pg's float parser (parseFloat) does, so the rows, and the answers
// written from them, are those of the plain select list (test/api/packed-numbers.test.ts,
// test/integration/api/packed-numbers.test.ts).

/** One item of a select list: its SQL, and whether it is a double precision column (packed). */
export interface SelectItem { sql: string; float8?: boolean }

/** A select list with its double precision items packed, and how a row read with it is set back to the plain list's shape. */
export interface PackedSelect {
  selectList: string;
  /** The row as the plain select list reads it; columns selected after the list (a keyset cursor's) stay at its end. */
  unpack(row: readonly unknown[]): unknown[];
}

/**
 * The elements of a float8[]'s text as pg's parser reads each one: `NULL` null, every other a number (NaN and the
 * infinities included, as parseFloat reads them). Numbers are never quoted in an array's text.
 * @example unpackNumbers('{1.5,NULL,-2}'); // [1.5, null, -2]
 */
export function unpackNumbers(text: string): (number | null)[] {
  if (text === '{}') return [];
  return text.slice(1, -1).split(',').map((v) => (v === 'NULL' ? null : Number(v)));
}

/**
 * `items` as a select list with every double precision item in one `array[...]::text` column, at the place of the
 * first of them; with fewer than two there is nothing to save, and the list is the plain one.
 * @example packedSelect([{ sql: 'c."IMEINumber"' }, { sql: 'c."A"', float8: true }, { sql: 'c."B"', float8: true }]).selectList;
 *   // 'c."IMEINumber", array[c."A", c."B"]::text'
 */
export function packedSelect(items: readonly SelectItem[]): PackedSelect {
  const packed = items.filter((item) => item.float8);
  if (packed.length < 2) return { selectList: items.map((item) => item.sql).join(', '), unpack: (row) => row as unknown[] };
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
