// The pages that read their numbers packed (api/device-records/packed-numbers.ts) read the rows the plain select
// list reads: every column packed is double precision in the schema (another type would be cast, or refused, in
// the array), and every float8 value, the awkward ones too, comes back as the number pg's own parser makes of it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CURRENTS_COLUMNS, CURRENTS_FLOAT8_COLUMNS } from '../../../api/device-records/load-history.js';
import { packedSelect } from '../../../api/device-records/packed-numbers.js';
import { RECORD_COLUMNS, RECORD_FLOAT8_COLUMNS } from '../../../api/device-records/present.js';
import { jsonValue } from '../../../api/device-records/row-json.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';

const test = suite('packed numbers');
let db: TestDatabase;
test.before(async () => { db = await createTestDatabase('packed'); });
test.after(async () => { await db.drop(); });

test('the columns read packed are the double precision columns of the tables they are read from', async () => {
  const types = async (table: string) => new Map((await db.pool.query<{ name: string; type: string }>(
    `select column_name as name, data_type as type from information_schema.columns where table_schema = 'public' and table_name = $1`, [table])).rows.map((r) => [r.name, r.type]));
  for (const [table, columns, float8] of [['device_currents', CURRENTS_COLUMNS, CURRENTS_FLOAT8_COLUMNS], ['device_records', RECORD_COLUMNS, RECORD_FLOAT8_COLUMNS]] as const) {
    const of = await types(table);
    const doubles = columns.filter((c) => of.get(c) === 'double precision');
    assert.equal([...float8].sort(), [...doubles].sort(), `${table}: the packed columns are its double precision columns`);
  }
});

test('every float8 value comes back as pg parses it, byte for byte in the JSON written from it', async () => {
  const awkward = ['0', '-0', '0.1', '1e-05', '5e-324', '1.7976931348623157e+308', '123456789.123456', '-2.5', '1e+15', '1e+21', 'NaN', 'Infinity', '-Infinity'];
  const values = [...awkward.map((v) => `'${v}'::float8`), 'null::float8', '1::float8 / 3'];
  const items = [{ sql: `'text, with {braces}' as t` }, ...values.map((sql) => ({ sql, float8: true })), { sql: `42::bigint as n` }];
  const plainRows = (await db.pool.query<unknown[]>({ text: `select ${items.map((i) => i.sql).join(', ')}`, rowMode: 'array' })).rows;
  const s = packedSelect(items);
  assert.ok(s.selectList.includes('array['), 'the statement packs the numbers');
  const packedRows = (await db.pool.query<unknown[]>({ text: `select ${s.selectList}, 'cursor' as k`, rowMode: 'array' })).rows.map(s.unpack);
  const plain = plainRows[0]!;
  const packed = packedRows[0]!;
  assert.is(packed.length, plain.length + 1);
  assert.is(packed.at(-1), 'cursor');
  plain.forEach((v, i) => {
    assert.ok(Object.is(v, packed[i]) || (Number.isNaN(v) && Number.isNaN(packed[i])), `column ${i}: ${String(v)} vs ${String(packed[i])}`);
    assert.is(jsonValue(packed[i]), jsonValue(v));
  });
});

test.run();
