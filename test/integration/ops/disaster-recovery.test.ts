// The disaster-recovery walk-through of docs/operations.md, on real Kafka, SQS and Postgres, with the real CLI:
// two deployments receive the same check-ins (each its own SQS queue, Kafka namespace and database): the
// reference never loses anything; the live one is backed up with pg_dump, takes more check-ins, loses its
// database (dropped while it runs), is restored with pg_restore, started again, and `faultline replay --from
// <backup start> --to <loss>` closes the gap from fi.raw.v1. Then every data table holds the same rows as
// the reference (surrogate ids and insert times apart, which a restore cannot and need not reproduce).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase, serverUrl, type TestDatabase } from '../../../support/database.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../../support/process.js';
import { TEST_KEYS } from '../../../support/alarm-setup.js';
import { importDemoData } from '../../../support/reference-data.js';
import { ensurePgTools } from '../../helpers/pg-tools.js';
import { STAGE_NAMES } from '../../../stages/pipeline.js';
import { buildMessages, createQueue, dropQueue, env, log, newSqsClient, randomName, startSender, waitFor, type Outgoing } from '../../resilience/rig.js';

const run = promisify(execFile);
const FIRST = 400; // check-ins before the backup
const SECOND = 400; // check-ins after it, lost with the database and brought back by the replay
const messages = buildMessages(FIRST + SECOND, 0, 47);
const FLEET = [...new Set(messages.flatMap((m) => (m.good ? [m.good.imei] : [])))];
/**
 * The tables the pipeline writes (persist and the triggers it fires), compared row set by row set. Configuration,
 * outboxes, alarms and dead letters are not re-made by a replay (docs/operations.md#disaster-recovery-walk-through).
 * checkin_clock (the notify stage's communication-lost clock) is left out: two deployments fed the same
 * check-ins did not end with the same clock rows even without a loss (seen here: 400 rows at each device's
 * first check-in against 272), so it is no measure of a restore; the clock is relearned from the next check-ins.
 */
const DATA_TABLES = ['device_records', 'device_currents', 'event_records', 'dm1_event_records', 'device_latest', 'model_change_alerts', 'device_read_counts', 'device_information'];
const MUST_HAVE_ROWS = ['device_records', 'device_currents', 'event_records', 'device_latest', 'device_read_counts', 'device_information'];

const sqs = newSqsClient();
const queues: string[] = [];
const deployments: { db: TestDatabase; proc: Faultline; namespace: string; queue: string }[] = [];

/** One deployment's bridge, pipeline and API as one `faultline start` child (the real CLI). */
class Faultline {
  proc: FaultlineProcess | null = null;
  constructor(readonly env: Record<string, string>) {}
  async start() {
    this.proc = startFaultline(['start', '--only', ['bridge', ...STAGE_NAMES, 'api'].join(',')], this.env);
    // Generous: on a loaded machine a start takes long; only its answer counts.
    await waitFor('faultline start to answer /healthz', async () => {
      if (this.proc!.child.exitCode !== null) throw new Error(`faultline start exited ${this.proc!.child.exitCode}\n${this.proc!.output().slice(-3000)}`);
      return (await fetch(`http://127.0.0.1:${this.env.PORT}/healthz`).catch(() => null))?.ok;
    }, { timeoutMs: 300_000, intervalMs: 500 });
  }
  async stop() {
    if (!this.proc) return;
    const killer = setTimeout(() => this.proc!.child.kill('SIGKILL'), 40_000);
    await this.proc.stop('SIGTERM');
    clearTimeout(killer);
  }
}
let workDir = '';

test.before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'faultline-dr-'));
});

test.after(async () => {
  for (const d of deployments) {
    await d.proc.stop().catch(() => {});
    await d.db.drop().catch(() => {});
  }
  for (const q of queues) await dropQueue(sqs, q).catch(() => {});
  sqs.destroy();
  rmSync(workDir, { recursive: true, force: true });
});

async function deployment(name: string) {
  const db = await createTestDatabase(`dr_${name}`);
  // The fleet's devices registered (device_information's last check-in and the alarm rules apply to them).
  await importDemoData(db.pool);
  await db.pool.query(`insert into device_information ("IMEINumber", "OrganizationID", "PowerLineID", "Real_Name")
    select imei, 'north', 'north-F12', 'DR ' || imei from unnest($1::text[]) imei on conflict do nothing`, [FLEET]);
  const namespace = randomName(`dr-${name}`);
  const queue = await createQueue(sqs, randomName(`dr-${name}`));
  queues.push(queue);
  // The secret key the demo integrations' credentials were sealed with (support/reference-data.ts testKeyring).
  const proc = new Faultline({
    KAFKA_BROKERS: env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL!, KAFKA_NAMESPACE: namespace, DATABASE_URL: db.url,
    SQS_QUEUE_URL: queue, SQS_ENDPOINT: env.SQS_ENDPOINT!, PORT: String(await freePort()), HOST: '127.0.0.1',
    DATA_DIR: mkdtempSync(join(workDir, `${name}-`)), JWT_SECRET: randomBytes(48).toString('base64'), FAULTLINE_SECRET_KEYS: TEST_KEYS,
  });
  const d = { db, namespace, queue, proc };
  deployments.push(d);
  await proc.start();
  return d;
}

async function send(queue: string, batch: Outgoing[]) {
  const sender = startSender(sqs, () => queue, batch, 1000);
  await sender.done;
}

const count = async (url: string, table: string) => withPool(url, async (p) => Number((await p.query(`select count(*) from ${table}`)).rows[0].count));

async function withPool<T>(url: string, f: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try { return await f(pool); } finally { await pool.end(); }
}

/**
 * A table's rows without the columns a restore cannot reproduce: identity ids (and the columns that hold
 * one, "...RecordID"), and insert times (a default of now()); and without source_message_id, the id the
 * deployment's own SQS queue gave the message (the two deployments' queues give different ones), and deleted_at,
 * the time each deployment's import marked a device deleted. Sorted, so the comparison is of row sets.
 */
async function rowSet(pool: pg.Pool, table: string): Promise<string[]> {
  const { rows: columns } = await pool.query<{ column_name: string }>(
    `select column_name from information_schema.columns
      where table_schema = 'public' and table_name = $1 and is_identity = 'NO'
        and coalesce(column_default, '') not like '%now()%' and column_name not like '%RecordID' and column_name not in ('source_message_id', 'deleted_at')
      order by ordinal_position`, [table]);
  const list = columns.map((c) => `"${c.column_name}"`).join(', ');
  const { rows } = await pool.query(`select ${list} from ${table}`);
  return rows.map((r) => JSON.stringify(r)).sort();
}

/** Per table, the rows only one side has (the first few), or nothing when the row sets are equal. */
function differences(actual: Record<string, string[]>, expected: Record<string, string[]>): Record<string, { missing: string[]; extra: string[]; counts: string }> {
  const out: Record<string, { missing: string[]; extra: string[]; counts: string }> = {};
  for (const t of DATA_TABLES) {
    const a = new Set(actual[t]);
    const e = new Set(expected[t]);
    const missing = [...e].filter((r) => !a.has(r));
    const extra = [...a].filter((r) => !e.has(r));
    if (missing.length || extra.length || actual[t]!.length !== expected[t]!.length) out[t] = { missing: missing.slice(0, 2), extra: extra.slice(0, 2), counts: `${actual[t]!.length} rows, reference ${expected[t]!.length}` };
  }
  return out;
}

/** Waits (generously: the machine may be loaded) until the database at `url` holds the reference's rows. */
async function sameRows(url: string, reference: () => Promise<Record<string, string[]>>, what: string): Promise<void> {
  let diff: ReturnType<typeof differences> = {};
  await waitFor(what, async () => {
    diff = differences(await dataTables(url), await reference());
    return Object.keys(diff).length === 0;
  }, { timeoutMs: 180_000, intervalMs: 2000 }).catch(() => undefined);
  assert.equal(diff, {}, what);
}

const dataTables = (url: string) => withPool(url, async (pool) => Object.fromEntries(await Promise.all(DATA_TABLES.map(async (t) => [t, await rowSet(pool, t)] as const))));

test('back up, ingest more, lose the database, restore, replay from Kafka: the data tables equal those of a database that lost nothing', async () => {
  const bin = await ensurePgTools();
  const live = await deployment('live');
  const reference = await deployment('reference');
  const good = (batch: Outgoing[]) => batch.filter((m) => m.good).length;
  const first = messages.slice(0, FIRST);
  const second = messages.slice(FIRST);

  // Check-ins before the backup, on both deployments.
  await Promise.all([send(live.queue, first), send(reference.queue, first)]);
  for (const d of [live, reference]) await waitFor(`${good(first)} stored`, async () => (await count(d.db.url, 'device_records')) >= good(first), { timeoutMs: 240_000, intervalMs: 500 });

  // 1. Back up: note the time, then dump.
  const backupStarted = new Date();
  const dump = join(workDir, 'faultline.dump');
  await run(join(bin, 'pg_dump'), ['--format=custom', `--file=${dump}`, live.db.url]);
  log(`backup of ${good(first)} check-ins taken`);

  // More check-ins after the backup.
  await Promise.all([send(live.queue, second), send(reference.queue, second)]);
  for (const d of [live, reference]) await waitFor(`${messages.length} stored`, async () => (await count(d.db.url, 'device_records')) >= good(messages), { timeoutMs: 240_000, intervalMs: 500 });
  // Stored is not yet done: notify (the check-in clock) follows persist. Both deployments end with the same rows.
  let expected = await dataTables(reference.db.url);
  await sameRows(live.db.url, async () => (expected = await dataTables(reference.db.url)), 'before the loss both deployments hold the same rows');
  for (const t of MUST_HAVE_ROWS) assert.ok(expected[t]!.length > 0, `the reference has ${t} rows to compare`);

  // 2. The loss: the database is dropped under the running process, which is then stopped.
  const lostAt = new Date();
  const name = new URL(live.db.url).pathname.slice(1);
  await withPool(serverUrl(), (p) => p.query(`drop database ${name} with (force)`));
  await live.db.pool.end().catch(() => {});
  await live.proc.stop();

  // 3. Restore into an empty database of the same name.
  await withPool(serverUrl(), (p) => p.query(`create database ${name}`));
  await run(join(bin, 'pg_restore'), ['--no-owner', `--dbname=${live.db.url}`, dump]);
  const restored = await count(live.db.url, 'device_records');
  log(`restored: ${restored} check-ins of ${good(messages)}`);
  assert.is(restored, good(first), 'the restore holds what the backup held, and no more');
  assert.ok(Object.keys(differences(await dataTables(live.db.url), expected)).includes('device_records'), 'the gap is there before the replay');

  // 4. Migrate (nothing to do for a dump of this release) and 5. start the processes again.
  const cliEnv = { KAFKA_BROKERS: env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL!, KAFKA_NAMESPACE: live.namespace, DATABASE_URL: live.db.url };
  const migrate = startFaultline(['migrate'], cliEnv);
  assert.is(await migrate.exited, 0, migrate.output());
  live.db.pool = new pg.Pool({ connectionString: live.db.url, max: 2 }); // for drop() at the end
  await live.proc.start();

  // 6. Close the gap from Kafka: from the time the backup started to the loss. Everything appended before the
  // backup started was stored before it (waited for above), so the replay re-reads exactly the gap.
  const replay = startFaultline(['replay', '--from', backupStarted.toISOString(), '--to', lostAt.toISOString(), '--timeout', '600'], cliEnv);
  const code = await replay.exited;
  log(`faultline replay --from ${backupStarted.toISOString()} --to ${lostAt.toISOString()}: exit ${code}\n${replay.output().split('\n').filter((l) => !l.startsWith('{')).slice(-6).join('\n')}`);
  assert.is(code, 0, replay.output());
  assert.match(replay.output(), `re-read ${good(second)} of ${good(second)} records`, 'the replay re-read the gap, and only the gap');

  await sameRows(live.db.url, async () => expected, 'every data table holds the same rows as the reference');
  const after = await dataTables(live.db.url);
  log(`after the replay: ${DATA_TABLES.map((t) => `${t} ${after[t]!.length}`).join(', ')}`);
});

test.run();
