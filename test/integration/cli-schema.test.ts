// Migrations only when asked (docs/decisions.md#migrations-only-when-asked), on the real Postgres: every
// command that opens the database, run against one a migration behind, refuses with exit 4 and a sentence
// saying what to run, and changes nothing; `faultline migrate` brings it up; `start` with DATABASE_URL
// migrates only with MIGRATE_ON_START=1. The commands are enumerated from the command table.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { COMMANDS, EXIT, commandNames, type CommandSpec } from '../../cli/command-table.js';
import { migrationFiles } from '../../db/migrate.js';
import { FIXTURES_DIR } from '../../support/checkins.js';
import { createTestDatabase, dumpTables, type TestDatabase } from '../../support/database.js';
import { freePort, startFaultline } from '../../support/process.js';
import { waitFor } from '../../support/wait-for.js';

const root = new URL('../../', import.meta.url).pathname;
let behind: TestDatabase;
let empty: TestDatabase;
let previous: string;
let latest: string;
const env = (db: TestDatabase, extra: Record<string, string> = {}) => ({
  ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn', FAULTLINE_SECRET_KEYS: `test:${Buffer.alloc(32, 3).toString('base64')}`,
  JWT_SECRET: randomBytes(32).toString('hex'), KAFKA_BROKERS: '', SQS_QUEUE_URL: '', DEMO_DATA: '0', SIMULATE: '0', ...extra,
});

function faultline(db: TestDatabase, args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/faultline.js', ...args], { cwd: root, env: env(db, extra), timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** A value for each placeholder the table's usage lines use, so every subcommand can be invoked as written. */
const EXAMPLE: Record<string, string[]> = {
  '<id>': ['1'], '[<id>]': ['1'], '<file.json>': [new URL('import.json', FIXTURES_DIR).pathname], '<imei>': ['861000000000000'],
  '<org>': ['north'], '<months|keep>': ['keep'], '<file>...': ['/nonexistent/north.parquet'], '<integration>': ['north-oms'], '<name>': ['ops-portal'],
};
const argsOf = (usage: string | undefined) => (usage ?? '').split(' ').filter(Boolean).flatMap((p) => {
  if (!EXAMPLE[p]) throw new Error(`no example value for ${p}: add one to EXAMPLE`);
  return EXAMPLE[p]!;
});

/** Every command line of the table whose command opens the database (its exit codes include 4). */
function databaseCommands(): string[][] {
  return commandNames().flatMap((name) => {
    const spec: CommandSpec = COMMANDS[name];
    if (!(EXIT.schemaBehind in spec.exitCodes)) return [];
    if (!spec.subcommands) return [[name, ...argsOf(spec.args)]];
    return Object.entries(spec.subcommands).map(([sub, s]) => [name, sub, ...argsOf(s.args)]);
  });
}

test.before(async () => {
  const files = await migrationFiles();
  previous = files.at(-2)!.slice(0, 4);
  latest = files.at(-1)!.slice(0, 4);
  behind = await createTestDatabase('cli_behind', { upTo: previous });
  empty = await createTestDatabase('cli_empty', { upTo: '0000' });
});
test.after(async () => { await behind?.drop(); await empty?.drop(); });

test('outbox list against a database one migration behind: exit 4, says what to run, changes nothing', async () => {
  const before = await dumpTables(behind.pool);
  const r = await faultline(behind, ['outbox', 'list']);
  assert.is(r.code, EXIT.schemaBehind, r.stderr);
  assert.is(r.stderr, `faultline: database schema is at ${previous}, this release needs ${latest}: run \`faultline migrate\`\n`);
  assert.is(r.stdout, '');
  assert.equal(await dumpTables(behind.pool), before);
});

test('every command that opens the database, start with DATABASE_URL included, refuses the same way', async () => {
  const commands = databaseCommands();
  assert.ok(commands.some((c) => c[0] === 'start') && commands.length > 15, 'the table was enumerated');
  const before = await dumpTables(behind.pool);
  const wrong: string[] = [];
  for (const args of commands) {
    const r = await faultline(behind, args, { PORT: String(await freePort()), HOST: '127.0.0.1' });
    if (r.code !== EXIT.schemaBehind || !r.stderr.includes(`this release needs ${latest}: run \`faultline migrate\``)) wrong.push(`faultline ${args.join(' ')}: exit ${r.code} ${r.stderr.trim().slice(-300)}`);
  }
  assert.equal(wrong, []);
  assert.equal(await dumpTables(behind.pool), before, 'nothing changed');
});

test('start with DATABASE_URL and MIGRATE_ON_START=1 migrates, then starts', async () => {
  const port = await freePort();
  const proc = startFaultline(['start', '--only', 'api'], { ...env(behind), MIGRATE_ON_START: '1', PORT: String(port), HOST: '127.0.0.1' });
  try {
    await waitFor('the API to answer', async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok === true, { timeoutMs: 90_000, intervalMs: 250 });
  } finally {
    assert.is(await proc.stop(), 0, proc.output());
  }
  const { rows } = await behind.pool.query<{ version: string }>('select version from schema_migrations order by 1 desc limit 1');
  assert.is(rows[0]!.version.slice(0, 4), latest);
  const r = await faultline(behind, ['outbox', 'list']);
  assert.equal([r.code, r.stdout], [0, 'no pending outbox rows\n']);
});

test('a database no migration touched: exit 4 naming it; `faultline migrate` brings it up, then commands run', async () => {
  await empty.pool.query('drop table schema_migrations');
  const refused = await faultline(empty, ['unregistered']);
  assert.is(refused.code, EXIT.schemaBehind);
  assert.match(refused.stderr, new RegExp(`^faultline: database schema is empty \\(no migration applied\\), this release needs ${latest} \\(\\d+ migrations missing\\): run \`faultline migrate\`\n$`));
  assert.is((await empty.pool.query(`select to_regclass('public.schema_migrations') as t`)).rows[0].t, null, 'not even the bookkeeping table was created');
  const migrated = await faultline(empty, ['migrate']);
  assert.is(migrated.code, 0, migrated.stderr);
  assert.match(migrated.stdout, new RegExp(`^applied 0001_\\w+, .*${latest}_\\w+\n$`));
  const again = await faultline(empty, ['migrate']);
  assert.match(again.stdout, /^up to date \(\d+ migrations\)\n$/);
  const r = await faultline(empty, ['unregistered']);
  assert.equal([r.code, r.stdout], [0, 'no unregistered devices\n']);
});

test.run();
