// No database connection within the pool's wait: a 503 the caller may retry, not a 500 (api/errors.ts renderError).
// pg's and pg-pool's own timeouts, from a server that accepts the connection and never answers it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { Hono } from 'hono';
import pg from 'pg';
import { renderError } from '../../api/errors.js';

test('a pool that gives no connection in time: 503 UNAVAILABLE with Retry-After, nothing of the error', async () => {
  const sockets: Socket[] = [];
  const silent = createServer((s) => { sockets.push(s); });
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const { port } = silent.address() as { port: number };
  const pool = new pg.Pool({ connectionString: `postgres://nobody@127.0.0.1:${port}/none`, max: 1, connectionTimeoutMillis: 50 });
  try {
    const app = new Hono();
    app.get('/rows', async (c) => c.json((await pool.query('select 1')).rows));
    app.onError(renderError);
    // The first request's connection never opens (pg's timeout); the second waits for the pool's one (pg-pool's).
    for (const res of await Promise.all([app.request('/rows'), app.request('/rows')])) {
      assert.is(res.status, 503);
      assert.is(res.headers.get('retry-after'), '1');
      const body = await res.text();
      assert.is(JSON.parse(body).error.code, 'UNAVAILABLE');
      assert.not.match(body, /timeout|terminated|pg|127\.0\.0\.1/);
    }
  } finally {
    for (const s of sockets) s.destroy();
    silent.close();
    await pool.end().catch(() => {});
  }
});

test.run();
