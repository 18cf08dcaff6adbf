// PostgreSQL from infra/up.sh: connect with DATABASE_URL, COPY rows in with pg-copy-streams, read back.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INFRA, infraEnv } from '../../../infra/endpoints.js';

const client = new pg.Client({ connectionString: process.env.DATABASE_URL ?? infraEnv().DATABASE_URL!, connectionTimeoutMillis: 5000 });

const ROWS = Array.from({ length: 1000 }, (_, i) => ({ imei: `35693803564${String(i).padStart(4, '0')}`, current: i * 0.5, note: i % 7 === 0 ? null : `row ${i}\twith tab` }));

// COPY text format: tab-separated, \N for NULL, backslash escapes for tab/newline/backslash.
const field = (v: string | number | null) => (v === null ? '\\N' : String(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n'));

test.before(async () => {
  await client.connect();
});

test.after(async () => {
  await client.end();
});

test('connects to the app database', async () => {
  const { rows } = await client.query<{ db: string; one: number }>('select current_database() as db, 1 as one');
  assert.equal(rows, [{ db: INFRA.postgres.database, one: 1 }]);
});

test('COPY FROM STDIN into a temp table, then read the rows back', async () => {
  await client.query('create temp table readings (imei text not null, current double precision not null, note text)');
  const lines = ROWS.map((r) => `${field(r.imei)}\t${field(r.current)}\t${field(r.note)}\n`);
  await pipeline(Readable.from(lines), client.query(copyFrom('copy readings (imei, current, note) from stdin')));

  const { rows } = await client.query<{ imei: string; current: number; note: string | null }>('select imei, current, note from readings order by imei');
  assert.is(rows.length, ROWS.length);
  assert.equal(rows, ROWS);
});

test('COPY TO STDOUT streams the same rows out', async () => {
  const chunks: Buffer[] = [];
  const out = client.query(copyTo('copy (select imei from readings order by imei) to stdout'));
  for await (const chunk of out) chunks.push(chunk as Buffer);
  const imeis = Buffer.concat(chunks).toString('utf8').trimEnd().split('\n');
  assert.equal(imeis, ROWS.map((r) => r.imei));
});

test.run();
