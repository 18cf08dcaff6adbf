// `faultline import --dry-run <file>` as an operator runs it, against real Postgres: it validates the file,
// prints per kind what would be created, updated and (soft) deleted, and writes nothing (every table dumped
// before and after). docs/decisions.md#import-dry-run
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Keyring } from '../../../secrets/keyring.js';
import { IMPORT_LOCK, importReferenceData, planImport } from '../../../reference-data/import.js';
import { waitFor } from '../../../support/wait-for.js';
import { FIXTURES_DIR, importFixture } from '../../../support/checkins.js';
import { createTestDatabase, dumpTables, type TestDatabase } from '../../../support/database.js';

const root = new URL('../../../', import.meta.url).pathname;
const key = randomBytes(32);
const fixturePath = new URL('import.json', FIXTURES_DIR).pathname;
type File = Record<string, Record<string, unknown>[]>;
let db: TestDatabase;
let dir: string;

function faultline(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn', FAULTLINE_SECRET_KEYS: `k1:${key.toString('base64')}`,
    JWT_SECRET: randomBytes(32).toString('hex'), KAFKA_BROKERS: '', SQS_QUEUE_URL: '',
  };
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/faultline.js', ...args], { cwd: root, env, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const planLines = (stdout: string) => Object.fromEntries(stdout.split('\n').filter((l) => / to create, /.test(l)).map((l) => l.split(': ') as [string, string]));

test.before(async () => {
  db = await createTestDatabase('import_dry');
  dir = mkdtempSync(join(tmpdir(), 'faultline-dry-run-'));
});
test.after(async () => { await db?.drop(); rmSync(dir, { recursive: true, force: true }); });

test('on an empty database: the fixture would create every row, and nothing is written', async () => {
  const before = await dumpTables(db.pool);
  const r = await faultline(['import', '--dry-run', fixturePath]);
  assert.is(r.code, 0, r.stderr);
  assert.equal(planLines(r.stdout), {
    organizations: '2 to create, 0 to update, 0 to delete, 0 unchanged',
    powerLines: '4 to create, 0 to update, 0 to delete, 0 unchanged',
    groups: '4 to create, 0 to update, 0 to delete, 0 unchanged',
    devices: '16 to create, 0 to update, 0 to delete, 0 unchanged',
    users: '4 to create, 0 to update, 0 to delete, 0 unchanged',
    integrations: '4 to create, 0 to update, 0 to delete, 0 unchanged',
    alarmRecipients: '0 to create, 0 to update, 0 to delete, 0 unchanged',
    alarmRules: '0 to create, 0 to update, 0 to delete, 0 unchanged',
  });
  assert.match(r.stdout, /dry run: nothing was written\n$/);
  assert.equal(await dumpTables(db.pool), before);
});

test('after the import: a renamed device, a new one and a deleted one are told apart, and nothing is written', async () => {
  await importReferenceData(db.pool, importFixture(), { keyring: new Keyring([{ id: 'k1', key }]) });
  const file = importFixture() as File;
  const devices = file.devices!;
  const live = devices.filter((d) => d.deleted !== true);
  live[0]!.Real_Name = 'renamed by the dry run';
  live[1]!.deleted = true;
  devices.push({ ...live[2]!, IMEINumber: '861000000000999', Real_Name: 'new', groups: [] });
  const path = join(dir, 'changed.json');
  writeFileSync(path, JSON.stringify(file));
  const before = await dumpTables(db.pool);
  const r = await faultline(['import', '--dry-run', path]);
  assert.is(r.code, 0, r.stderr);
  const plan = planLines(r.stdout);
  assert.is(plan.devices, '1 to create, 1 to update, 1 to delete, 14 unchanged');
  assert.is(plan.organizations, '0 to create, 0 to update, 0 to delete, 2 unchanged');
  assert.equal(await dumpTables(db.pool), before);
});

test('an import committing while the dry run waits for the lock: the deletes are counted after it, as the rest', async () => {
  const file = importFixture() as File;
  const doomed = file.devices!.find((d) => d.deleted !== true)!;
  doomed.deleted = true;
  const other = await db.pool.connect();
  try {
    // Another import holds the lock and deletes the same device.
    await other.query('begin');
    await other.query('select pg_advisory_xact_lock($1)', [IMPORT_LOCK]);
    await other.query('update device_information set deleted_at = now() where "IMEINumber" = $1', [doomed.IMEINumber]);
    const planned = planImport(db.pool, file, { keyring: new Keyring([{ id: 'k1', key }]) });
    await waitFor('the dry run to wait for the import lock', async () =>
      (await db.pool.query(`select 1 from pg_locks where locktype = 'advisory' and not granted and objid = $1`, [IMPORT_LOCK])).rowCount);
    await other.query('commit');
    const { counts, deleting } = await planned;
    assert.is(deleting.devices, 0, 'the device was deleted by the import before it: nothing left to delete');
    assert.ok(deleting.devices <= counts.devices.updated, 'never more deletes than updates');
  } finally {
    await other.query('rollback').catch(() => {});
    other.release();
  }
});

test('a wrong file: exit 1 naming the problem, and nothing is written', async () => {
  const file = importFixture() as File;
  file.devices![0]!.Lat = 'north';
  const path = join(dir, 'wrong.json');
  writeFileSync(path, JSON.stringify(file));
  const before = await dumpTables(db.pool);
  const r = await faultline(['import', '--dry-run', path]);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /devices\[[^\]]*\]\.Lat/);
  assert.not.match(r.stdout, /to create/);
  assert.equal(await dumpTables(db.pool), before);
});

// docs/decisions.md#secrets-left-at-their-example: the example file's passwords and secrets are published, so
// both commands refuse them, naming each field and row and never the value, and write nothing.
test('docs/examples/import.json as printed: import and --dry-run refuse its placeholder secrets by field and row', async () => {
  const example = join(root, 'docs/examples/import.json');
  const before = await dumpTables(db.pool);
  for (const args of [['import', '--dry-run', example], ['import', example]]) {
    const r = await faultline(args);
    assert.is(r.code, 1, `${args.join(' ')}: ${r.stdout}`);
    for (const path of ['users[0].password', 'users[1].password', 'integrations[0].password', 'alarmRecipients[2].secret']) {
      assert.match(r.stderr, `${path}: is still a placeholder from the documentation's examples`, `${args.join(' ')}: ${path}`);
    }
    assert.not.match(r.stderr, /change-me/i, 'no value quoted');
    assert.not.match(r.stdout, /to create/);
  }
  assert.equal(await dumpTables(db.pool), before);
});

test.run();
