// The outbox workers run on db/wakeups.ts (docs/decisions.md#plumbing-written-once): a row added by any
// process is sent on the table's NOTIFY (migration 0046), not at the next poll, and a row whose NOTIFY never
// came (a trigger that did not fire, a dropped listening connection) is still sent by the fallback tick.
// Run on a table of the test's own made like the two outboxes, with the migration's trigger function, and
// on the real triggers of `outbox` and `alarm_outbox`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startOutboxWorker, type OutboxWorker } from '../../../outbox/worker.js';
import { outboxTable, type ClaimedBase } from '../../../outbox/table.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { waitFor } from '../../../support/wait-for.js';

const HOUR = 3_600_000;
const CHANNEL = 'wakeup_test_outbox_rows';
interface Row extends ClaimedBase { lane: string; body: string }
const table = outboxTable<Row>({ table: 'wakeup_test_outbox', channel: CHANNEL, lane: ['lane'], columns: ['lane', 'body'] });

let db: TestDatabase;
let worker: OutboxWorker | undefined;
const sent: string[] = [];

function start(pollMs: number): OutboxWorker {
  return startOutboxWorker<Row>({
    name: 'wakeup-test', label: 'test', pool: db.pool, table, pollMs,
    send: async (row) => { sent.push(row.body); },
    failure: () => ({ code: 'X', message: 'x', retriable: true }),
    maxAgeMs: () => HOUR,
    describe: (row) => ({ id: row.id }),
  });
}

const listening = () => waitFor(`the worker listening on ${CHANNEL}`, async () => (await db.pool.query(
  `select 1 from pg_stat_activity where datname = current_database() and query = $1`, [`listen ${CHANNEL}`])).rowCount === 1 || undefined, { timeoutMs: 60_000, intervalMs: 100 });

test.before(async () => {
  db = await createTestDatabase('outboxwakeups');
  await db.pool.query(`create table wakeup_test_outbox (
    id bigint generated always as identity primary key, lane text not null, body text not null,
    attempts int not null default 0, created_at timestamptz not null default now(), next_attempt_at timestamptz not null default now(),
    last_error text, delivered_at timestamptz, dead_at timestamptz)`);
  await db.pool.query(`create trigger wakeup_test_outbox_rows after insert on wakeup_test_outbox
    for each statement execute function outbox_rows_notify('${CHANNEL}')`);
});
test.after.each(async () => {
  await worker?.stop();
  worker = undefined;
});
test.after(async () => {
  await db?.drop();
});

test('a row added while the worker idles for an hour is sent on its NOTIFY', async () => {
  worker = start(HOUR);
  await listening();
  // The first round (at start) has run once the LISTEN is the connection's last statement; the row comes after.
  await db.pool.query(`insert into wakeup_test_outbox (lane, body) values ('a', 'woken by notify')`);
  await waitFor('the row sent', () => sent.includes('woken by notify') || undefined, { timeoutMs: 60_000, intervalMs: 100 });
  const { rows } = await db.pool.query<{ delivered: boolean }>(`select delivered_at is not null as delivered from wakeup_test_outbox where body = 'woken by notify'`);
  assert.equal(rows, [{ delivered: true }]);
});

test('a row whose NOTIFY never came is sent by the tick: nothing lost', async () => {
  await db.pool.query('alter table wakeup_test_outbox disable trigger wakeup_test_outbox_rows');
  try {
    worker = start(200);
    await listening();
    await db.pool.query(`insert into wakeup_test_outbox (lane, body) values ('b', 'found by the tick')`);
    await waitFor('the row sent', () => sent.includes('found by the tick') || undefined, { timeoutMs: 60_000, intervalMs: 100 });
  } finally {
    await db.pool.query('alter table wakeup_test_outbox enable trigger wakeup_test_outbox_rows');
  }
  const { rows } = await db.pool.query<{ n: number }>(`select count(*)::int as n from wakeup_test_outbox where delivered_at is null`);
  assert.is(rows[0]!.n, 0);
});

test('the MultiSpeak outbox and the alarm outbox raise the channels their workers listen on', async () => {
  const { rows } = await db.pool.query<{ tbl: string; args: string }>(
    `select c.relname as tbl, encode(t.tgargs, 'escape') as args from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where not t.tgisinternal and t.tgfoid = 'outbox_rows_notify'::regproc and c.relname in ('outbox', 'alarm_outbox') order by 1`);
  const { multiSpeakOutbox } = await import('../../../multispeak/delivery/outbox.js');
  const { alarmOutbox } = await import('../../../alarms/outbox.js');
  assert.equal(rows.map((r) => [r.tbl, r.args.replace(/\\000$/, '')]), [
    [alarmOutbox.spec.table, alarmOutbox.spec.channel], [multiSpeakOutbox.spec.table, multiSpeakOutbox.spec.channel],
  ]);
});

test.run();
