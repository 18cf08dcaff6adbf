// The pages that read their numbers packed (api/device-records/packed-numbers.ts) write what they wrote from the
// plain select list: every column packed is double precision in the schema (another type would be cast, or refused,
// in the array); every float8 value, the awkward ones and 20,000 random ones over 600 orders of magnitude, is
// written as jsonValue (row-json.ts) wrote the number pg's parser made of the plain column, whatever
// extra_float_digits Postgres writes them with; and the data-log and
// load-history pages of a database fed through the stages, with awkward numbers stored, are the object presenters'
// text of the same rows.
import type pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CURRENTS_COLUMNS, CURRENTS_FLOAT8_COLUMNS } from '../../../api/device-records/load-history.js';
import { packedSelect, unpackNumbers, type SelectItem } from '../../../api/device-records/packed-numbers.js';
import { RECORD_COLUMNS, RECORD_NUMBER_COLUMNS } from '../../../api/device-records/present.js';
import { jsonValue } from '../../../api/device-records/row-json.js';
import { displayTime, presentContext, presentRecord, type PresentContext } from '../../../api/device-records/present.js';
import { loadCodeStrings } from '../../../api/device-records/code-strings-file.js';
import type { TestDatabase } from '../../../support/database.js';
import { seededApi, type SeededApi } from './seeded-api.js';

const test = suite('packed numbers');
let api: SeededApi;
let db: TestDatabase;
test.before(async () => { api = await seededApi(); db = api.db; });
test.after(async () => { await api.close(); });

test('the columns read packed are double precision columns of the tables they are read from', async () => {
  for (const [table, columns, packed] of [['device_currents', CURRENTS_COLUMNS, CURRENTS_FLOAT8_COLUMNS], ['device_records', RECORD_COLUMNS, RECORD_NUMBER_COLUMNS]] as [string, readonly string[], readonly string[]][]) {
    const { rows } = await db.pool.query<{ name: string }>(
      `select column_name as name from information_schema.columns where table_schema = 'public' and table_name = $1 and data_type = 'double precision'`, [table]);
    const doubles = new Set(rows.map((r) => r.name));
    for (const c of packed) assert.ok(doubles.has(c) && columns.includes(c), `${table}.${c} is a selected double precision column`);
  }
  assert.equal([...CURRENTS_FLOAT8_COLUMNS].sort(), CURRENTS_COLUMNS.filter((c) => c !== 'PacketTimestamp' && c !== 'PeakCurrentTimestamp' && c !== 'IMEINumber' && c !== 'CurrentName').sort());
});

/**
 * Postgres's float8 text at each `extra_float_digits` a role, database or session may set: 1 (the default) and above,
 * the shortest exact digits; 0 and below, fewer, rounded (near the largest double the rounded text overflows).
 */
const FLOAT_DIGITS = [1, 3, 0, -15];
async function atFloatDigits(digits: number, fn: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await db.pool.connect();
  try {
    await client.query(`set extra_float_digits = ${digits}`);
    await fn(client);
  } finally {
    await client.query('reset extra_float_digits');
    client.release();
  }
}

test('every float8 value is written as the writer wrote the number pg parsed, at every extra_float_digits', async () => {
  const awkward = ['0', '-0', '0.1', '1e-05', '5e-324', '1.7976931348623157e+308', '-1.7976931348623157e+308', '1.5e+308', '123456789.123456', '-2.5', '1e+15', '1e+21', 'NaN', 'Infinity', '-Infinity'];
  const values = [...awkward.map((v) => `'${v}'::float8`), 'null::float8', '1::float8 / 3'];
  const items: SelectItem[] = [{ sql: `'text, with {braces}'` }, ...values.map((sql) => ({ sql, float8: true })), { sql: '42::bigint' }];
  const s = packedSelect(items);
  for (const digits of FLOAT_DIGITS) {
    await atFloatDigits(digits, async (client) => {
      const plain = (await client.query<unknown[]>({ text: `select ${items.map((i) => i.sql).join(', ')}`, rowMode: 'array' })).rows[0]!;
      const packed = s.unpack((await client.query<unknown[]>({ text: `select ${s.selectList}, 'cursor'`, rowMode: 'array' })).rows[0]!);
      assert.is(packed.length, plain.length + 1);
      assert.is(packed.at(-1), 'cursor');
      items.forEach((item, i) => assert.is(item.float8 ? packed[i] : jsonValue(packed[i]), jsonValue(plain[i]), `extra_float_digits ${digits}, column ${i}: ${String(awkward[i - 1])}`));
    });
  }
});

test('20,000 random doubles over 600 orders of magnitude, whole numbers and the largest among them, at every extra_float_digits', async () => {
  for (const digits of FLOAT_DIGITS) {
    await atFloatDigits(digits, async (client) => {
      const { rows } = await client.query<unknown[]>({ rowMode: 'array', text: `
        select array_agg(x order by i)::text, array_agg(x order by i) from (
          select i, case when i % 5 = 0 then round((random() - 0.5) * 1e6)::float8
                         when i % 101 = 0 then sign(random() - 0.5) * (1.5e308 + random() * 0.2976931348623157e308)
                         else (random() - 0.5) * 10 ^ (random() * 600 - 300) end as x
            from generate_series(1, 20000) i) s` });
      const [text, parsed] = rows[0] as [string, number[]];
      const written = unpackNumbers(text);
      assert.is(written.length, 20_000);
      const wrong = parsed.map((n, i) => [jsonValue(n), written[i]]).filter(([a, b]) => a !== b);
      assert.equal(wrong.slice(0, 5), [], `extra_float_digits ${digits}: ${wrong.length} of 20,000 written otherwise`);
    });
  }
});

test('data-log and load-history pages, awkward numbers stored, are the object presenters\' text of the same rows', async () => {
  const { rows: [device] } = await db.pool.query<{ imei: string }>(`select r."IMEINumber" as imei from device_records r join device_currents c using ("IMEINumber")
     join device_information d using ("IMEINumber") where d."OrganizationID" = 'north' group by 1 order by count(*) desc limit 1`);
  const imei = device!.imei;
  const awkward = `"rssi" = '-0', "AverageCurrent1m" = 'NaN', "Temperature" = '1e-05', "gps_lat" = '-Infinity', "BatteryMCU" = null, "PeakCurrent24h" = '1e+300'`;
  assert.is((await db.pool.query(`update device_records set ${awkward} where "IMEINumber" = $1`, [imei])).rowCount! > 0, true);
  await db.pool.query(`update device_currents set "PeakCurrent" = 'NaN', "AverageCurrentH0" = '-0', "AverageCurrentH1" = '1.5e-07', "AverageCurrentH2" = null, "AverageCurrentH23" = 'Infinity' where "IMEINumber" = $1`, [imei]);
  const claims = JSON.parse(Buffer.from(api.tokens.northAdmin.split('.')[1]!, 'base64url').toString('utf8')) as { tz: string };
  const ctx: PresentContext = presentContext({ timeZone: claims.tz } as Parameters<typeof presentContext>[0], loadCodeStrings());
  const sent = async (path: string) => { const res = await api.get(path, 'northAdmin'); assert.is(res.status, 200, path); return res.text(); };
  const records = (await db.pool.query<Record<string, unknown>>(`select * from device_records where "IMEINumber" = $1 order by "date" desc, "RecordID" desc limit 50`, [imei])).rows;
  const currents = (await db.pool.query<Record<string, unknown>>(`select * from device_currents where "IMEINumber" = $1 order by "PacketTimestamp" desc limit 50`, [imei])).rows;
  const presentCurrents = (row: Record<string, unknown>) => Object.fromEntries(CURRENTS_COLUMNS.map((c) => [c, c.endsWith('Timestamp') ? displayTime(row[c], ctx) : row[c] ?? null]));
  const expected = { records: records.map((r) => JSON.stringify(presentRecord(r, ctx))), currents: currents.map((r) => JSON.stringify(presentCurrents(r))) };
  assert.ok(records.length > 1 && currents.length > 1, 'the device has rows of each');
  for (const [path, rows] of [[`/device-records/device-information/data-log/${imei}`, expected.records], [`/device-records/device-information/data-log/${imei}?from=20200101`, expected.records],
    [`/device-records/device-information/load-history/${imei}`, expected.currents], [`/device-records/device-information/load-history/${imei}?from=20200101`, expected.currents]] as const) {
    const body = await sent(path);
    assert.ok(body.startsWith(`{"data":[${rows.join(',')}]`), `${path}: ${body.slice(0, 300)}`);
  }
  // The fleet's list (its walk, not one device's), filtered to the device: the same rows, each as presented.
  const fleet = await sent(`/device-records/data-log?filterBy[IMEINumber]=${imei}`);
  assert.ok(fleet.startsWith(`{"data":[${expected.records.join(',')}]`), fleet.slice(0, 300));
  assert.ok(expected.records[0]!.includes('"rssi":0') && expected.records[0]!.includes('"Temperature":0.00001') && expected.currents[0]!.includes('"AverageCurrentH1":1.5e-7'), 'the awkward numbers are on the first row');
});

test.run();
