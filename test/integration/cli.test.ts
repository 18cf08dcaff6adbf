// The operator's commands, run as an operator runs them (`faultline <command>` as a child process) against
// a fresh database on the real Postgres.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { FIXTURES_DIR } from '../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { persistBatch } from '../../stages/persist/index.js';
import { integrationSecretHash } from '../../secrets/integration-key.js';
import { checkInOf, computed } from '../../support/checkins.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
let db: TestDatabase;
const env = () => ({ ...process.env, DATABASE_URL: db.url, FAULTLINE_SECRET_KEYS: `test:${Buffer.alloc(32, 3).toString('base64')}`, LOG_LEVEL: 'warn' });
const faultline = (...args: string[]) => run(process.execPath, ['bin/faultline.js', ...args], { cwd: root, env: env() });

/** The error of a command that must fail; a command that succeeds fails the test. */
async function failure(command: Promise<unknown>): Promise<{ stderr?: string; code?: number }> {
  try {
    await command;
  } catch (err) {
    return err as { stderr?: string; code?: number };
  }
  throw new Error('the command succeeded but should have failed');
}

test.before(async () => { db = await createTestDatabase('cli'); });
test.after(async () => { await db.drop(); });

test('migrate: up to date on a migrated database', async () => {
  const { stdout } = await faultline('migrate');
  assert.match(stdout, /up to date \(\d+ migrations\)/);
});

test('import: the fixture file, then again: the second run changes nothing', async () => {
  const file = new URL('import.json', FIXTURES_DIR).pathname;
  const first = await faultline('import', file);
  assert.match(first.stdout, /devices: 16 inserted, 0 updated, 0 unchanged/);
  const second = await faultline('import', file);
  assert.match(second.stdout, /devices: 0 inserted, 0 updated, 16 unchanged/);
  assert.match(second.stdout, /integrations: 0 inserted, 0 updated, 4 unchanged/);
  const { rows } = await db.pool.query(`select count(*)::int as n from integrations where settings::text like '%secret%' or credentials is null and kind = 'multispeak'`);
  assert.is(rows[0].n, 0, 'credentials only encrypted, never in settings');
});

test('import: a broken file is refused with the problem named, and nothing is written', async () => {
  const error = await failure(faultline('import', new URL('messages/013-malformed-json.json', FIXTURES_DIR).pathname));
  assert.is(error.code, 1);
  assert.match(error.stderr ?? '', /is not valid JSON/);
  assert.is(Number((await db.pool.query('select count(*) from organizations')).rows[0].count), 2, 'the earlier import is untouched');
});

test('unregistered: lists an IMEI that checked in without being registered', async () => {
  await persistBatch(db.pool, [computed(checkInOf('012-unknown-device.json'), { CurrentName: null, CurrentLat: null, CurrentLong: null })]);
  const { stdout } = await faultline('unregistered');
  assert.match(stdout, /869999999999999 {2}first 2026-11-20T15:15:00.000Z {2}last 2026-11-20T15:15:00.000Z {2}1 check-ins/);
});

test('rejected: lists refused messages with code and reason', async () => {
  await db.pool.query(`insert into rejected_messages (message_id, source, stage, imei, code, reason, body, rejected_at) values ('m1', 'sqs', 'enrich', null, 'INVALID', 'device_data.IMEINumber: missing', '{}', now())`);
  const { stdout } = await faultline('rejected');
  assert.match(stdout, /enrich INVALID imei=-/);
  assert.match(stdout, /device_data.IMEINumber: missing/);
});

test('rejected --code --since --stack: only that code and age, with the topic and the error\'s stack', async () => {
  await db.pool.query(`insert into rejected_messages (message_id, source, stage, imei, code, reason, body, rejected_at, topic, detail) values
    ('m2', 'sqs', 'persist', '861234567890123', 'PROCESSING_FAILED', 'persist failed on this record 5 times: boom', '{}', now(), 'fi.raw.v1', 'TypeError: boom\n    at persist (stages/persist/stage.ts:1:1)'),
    ('m3', 'sqs', 'persist', '861234567890124', 'PROCESSING_FAILED', 'persist failed on this record 5 times: old', '{}', now() - interval '3 days', 'fi.raw.v1', 'Error: old')`);
  const { stdout } = await faultline('rejected', '--code', 'PROCESSING_FAILED', '--since', '1d', '--stack');
  assert.match(stdout, /persist PROCESSING_FAILED imei=861234567890123 from=fi.raw.v1/);
  assert.match(stdout, /persist failed on this record 5 times: boom\n\s+TypeError: boom\n\s+at persist/);
  assert.not.match(stdout, /INVALID/, 'other codes left out');
  assert.not.match(stdout, /old/, 'older than --since left out');
  const error = await failure(faultline('rejected', 'resubmit'));
  assert.match(error.stderr ?? '', /give an id, or --code C/);
});

test('integration-keys: the operator creates and rotates a key of any organisation, printed once; only its hash is stored', async () => {
  const created = await faultline('integration-keys', 'create', 'south', 'SCADA master S');
  const key = /^flk_([0-9a-f]{16})_([0-9a-f]{64})$/m.exec(created.stdout);
  assert.ok(key, created.stdout);
  const [, id, secret] = key;
  const row = async () => (await db.pool.query('select name, created_by, encode(secret_sha256, \'hex\') as hash, row_to_json(k)::text as all from integration_keys k where id = $1', [id])).rows[0];
  const first = await row();
  assert.equal([first.name, first.created_by], ['SCADA master S', 'operator (command line)']);
  assert.is(first.hash, integrationSecretHash(secret!).toString('hex'), 'the hash of the secret is stored');
  assert.not.ok(first.all.includes(secret!), 'the secret is not in the row');

  const rotated = await faultline('integration-keys', 'rotate', 'south', id!);
  const again = new RegExp(`^flk_${id}_([0-9a-f]{64})$`, 'm').exec(rotated.stdout);
  assert.ok(again && again[1] !== secret, rotated.stdout);
  assert.is((await row()).hash, integrationSecretHash(again[1]!).toString('hex'), 'the new secret\'s hash replaces the old');

  for (const [args, problem] of [
    [['create', 'nowhere', 'x'], /no organisation "nowhere"/],
    [['create', 'south', ' '], /the name must be a non-empty text/],
    [['rotate', 'north', id!], /no key ".*" of organisation north/],
    [['rotate', 'south', 'nothex'], /no key "nothex"/],
  ] as const) {
    const error = await failure(faultline('integration-keys', ...args));
    assert.is(error.code, 1, args.join(' '));
    assert.match(error.stderr ?? '', problem);
  }
});

test('an unknown command exits 2 with the usage', async () => {
  const error = await failure(faultline('frobnicate'));
  assert.is(error.code, 2);
  assert.match(error.stderr ?? '', /unknown command "frobnicate"/);
});

test.run();
