// Regression (found by faults.test.ts, Postgres restart): a pooled client that is checked out but between
// queries when the server ends its connection ("terminating connection due to administrator command",
// 57P01, sent to every backend on shutdown) emitted an unhandled 'error' and killed the whole process.
// pg_terminate_backend sends the same message, so this reproduces it in a second, without a restart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { isRetriableDatabaseError } from '../../db/errors.js';
import { createPool } from '../../db/pool.js';
import { serverUrl } from '../../support/database.js';
import { sleep } from './rig.js';

test('a checked-out client whose connection the server terminates fails its next query retriably; the process lives', async () => {
  const pool = createPool({ connectionString: serverUrl(), max: 2 });
  const admin = createPool({ connectionString: serverUrl(), max: 1 });
  try {
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    await sleep(300); // the FATAL arrives while no query runs on the client
    const err = await client.query('select 1').then(() => null, (e: unknown) => e);
    assert.ok(err, 'the query on the dead connection fails');
    assert.ok(isRetriableDatabaseError(err), `retriable: ${(err as Error).message}`);
    client.release(true);
    assert.equal((await pool.query('select 1 as one')).rows, [{ one: 1 }], 'the pool hands out a fresh connection');
  } finally {
    await pool.end();
    await admin.end();
  }
});

test('without the fix the same sequence kills a process (the test above can fail)', async () => {
  // A bare pg.Pool, as before db/pool.ts added its listener: the child must die of the unhandled error.
  const script = `
    import pg from 'pg';
    const pool = new pg.Pool({ connectionString: process.env.URL, max: 1 });
    pool.on('error', () => {});
    const admin = new pg.Client({ connectionString: process.env.URL });
    await admin.connect();
    const client = await pool.connect();
    const { rows } = await client.query('select pg_backend_pid() as pid');
    await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
    await new Promise((r) => setTimeout(r, 500));
    console.log('survived');
    process.exit(0);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, URL: serverUrl() }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.is.not(code, 0, `a bare pool dies: ${out.slice(0, 300)}`);
  assert.match(out, /57P01|terminating connection/);
});

test.run();
