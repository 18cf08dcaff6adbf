// Rows moved out of a default partition when their month is made (fl_ensure_month, migrations 0049 and 0054,
// docs/decisions.md#partition-granularity) on real PostgreSQL, while a writer adds another row of that month to
// the default partition: the move keeps every row, and the per-device counters (migrations 0004, 0053) still count
// what the tables hold. The writer's commit is placed between the move's steps by an event trigger that waits on
// an advisory lock the test holds, so the interleaving is the same on every run.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { addMonths, monthBounds, monthDate, monthOfMs } from '../../../domain/storage-months.js';
import { timePartitions } from '../../../storage/partitions.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { waitFor } from '../../../support/wait-for.js';

const test = suite('strays moved out of the default partition while a writer adds one (real Postgres)');
const IMEI = '869300000000001';
const MONTH = addMonths(monthOfMs(Date.now()), -6);
const PAUSE = 0x66_6c_73_74; // the advisory lock the move waits on, after copying the strays
let db: TestDatabase;

test.before(async () => {
  db = await createTestDatabase('stray_move');
  // MONTH without partitions: its rows land in the default partitions.
  for (const p of (await timePartitions(db.pool)).filter((x) => x.month === MONTH)) await db.pool.query(`drop table "${p.partition}"`);
  // Wait, in a session that asked to (fl.test_pause), once the strays are copied (fl_ensure_month's CREATE TABLE AS).
  await db.pool.query(`create function fl_test_pause() returns event_trigger language plpgsql as $$
    begin
      if current_setting('fl.test_pause', true) = 'on' then perform pg_advisory_lock(${PAUSE}); perform pg_advisory_unlock(${PAUSE}); end if;
    end $$`);
  await db.pool.query(`create event trigger fl_test_pause on ddl_command_end when tag in ('CREATE TABLE AS') execute function fl_test_pause()`);
});
test.after(async () => {
  await db?.pool.query('drop event trigger if exists fl_test_pause').catch(() => {});
  await db?.drop();
});

const current = (at: number) => db.pool.query(`insert into device_currents ("PacketTimestamp", "IMEINumber", "PeakCurrent") values ($1, $2, 100)`, [new Date(at), IMEI]);

test('a row written to the default partition while its month is made is kept, and counted', async () => {
  const from = monthBounds(MONTH).fromMs;
  await current(from + 86_400_000);
  assert.is(Number((await db.pool.query(`select count(*) as n from device_currents_default`)).rows[0].n), 1, 'the first row is a stray');

  const holder = new pg.Client({ connectionString: db.url });
  const maker = new pg.Client({ connectionString: db.url });
  await holder.connect();
  await maker.connect();
  try {
    await holder.query('select pg_advisory_lock($1)', [PAUSE]);
    await maker.query(`set fl.test_pause = 'on'`);
    const made = maker.query('select fl_ensure_month($1::date) as made', [monthDate(MONTH)]);
    // The move copied the strays and waits: the writer's row commits now, into the default partition.
    await waitFor('the move waiting after its copy', async () =>
      Number((await db.pool.query(`select count(*) as n from pg_locks where locktype = 'advisory' and objid = $1 and not granted`, [PAUSE])).rows[0].n) === 1 || null);
    await current(from + 2 * 86_400_000);
    await holder.query('select pg_advisory_unlock($1)', [PAUSE]);
    await made.catch(() => undefined);
  } finally {
    await holder.end();
    await maker.end();
  }

  const { rows } = await db.pool.query<{ at: Date }>(`select "PacketTimestamp" as at from device_currents where "IMEINumber" = $1 order by 1`, [IMEI]);
  assert.equal(rows.map((r) => r.at.getTime()), [from + 86_400_000, from + 2 * 86_400_000], 'both rows are stored (in the month or still in the default partition)');
  const { rows: [counted] } = await db.pool.query<{ currents: string }>(`select currents from device_read_counts where "IMEINumber" = $1`, [IMEI]);
  assert.is(Number(counted!.currents), 2, 'the counter counts both');
});

test.run();
