// The fleet worker (fleet-health/worker.ts) on real Postgres: two workers on one database (two pools, as two processes)
// run their steps one at a time and in order, each step in its own transaction; a step that throws is rolled back,
// logged and counted, the round goes on, and it is run again on the next tick; stop() waits for the running round.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { log } from '../../../config/log.js';
import { registry } from '../../../config/metrics.js';
import { startFleetWorker, type FleetStep } from '../../../fleet-health/worker.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { waitFor } from '../../../support/wait-for.js';

let db: TestDatabase;
let second: pg.Pool;
test.before(async () => {
  db = await createTestDatabase('fleet-worker');
  second = new pg.Pool({ connectionString: db.url, max: 4 });
  await db.pool.query('create table fleet_worker_trace (n bigint generated always as identity, worker text, step text, edge text)');
});
test.after(async () => {
  await second.end();
  await db.drop();
});

const metric = async (name: string, step: string) => {
  const m = await registry.getSingleMetric(name)!.get();
  return m.values.find((v) => v.labels.step === step)?.value ?? 0;
};

/** A step that writes its start and end to the trace in its transaction, with another statement's time between. */
const traced = (worker: string, step: string): FleetStep => ({
  name: step,
  run: async (client) => {
    await client.query('insert into fleet_worker_trace (worker, step, edge) values ($1, $2, $3)', [worker, step, 'in']);
    await client.query('select pg_sleep(0.02)');
    await client.query('insert into fleet_worker_trace (worker, step, edge) values ($1, $2, $3)', [worker, step, 'out']);
  },
});

test('two workers on one database run the steps one at a time, in order, each round whole', async () => {
  const a = startFleetWorker({ pool: db.pool, tickMs: 20, steps: [traced('a', 'first'), traced('a', 'second')] });
  const b = startFleetWorker({ pool: second, tickMs: 20, steps: [traced('b', 'first'), traced('b', 'second')] });
  const workers = async () => (await db.pool.query<{ worker: string }>(`select distinct worker from fleet_worker_trace where step = 'second' and edge = 'out'`)).rows.length;
  await waitFor('both workers to have run rounds', async () => (await workers()) === 2 && (await db.pool.query('select 1 from fleet_worker_trace')).rowCount! >= 40);
  await Promise.all([a.stop(), b.stop()]);
  const { rows } = await db.pool.query<{ worker: string; step: string; edge: string }>('select worker, step, edge from fleet_worker_trace order by n');
  // Committed rows in commit order: in/out of one step, then the next step of the same worker; never interleaved.
  assert.is(rows.length % 4, 0);
  for (let i = 0; i < rows.length; i += 4) {
    const round = rows.slice(i, i + 4);
    assert.equal(round.map((r) => `${r.step}:${r.edge}`), ['first:in', 'first:out', 'second:in', 'second:out'], `round at ${i}`);
    assert.ok(round.every((r) => r.worker === round[0]!.worker), `one worker's round at ${i}`);
  }
  assert.ok(await metric('faultline_fleet_step_runs_total', 'second') >= rows.length / 4);
});

test('a step that throws is rolled back, logged and counted; the next step runs; the failed one runs again next tick', async () => {
  await db.pool.query('truncate fleet_worker_trace');
  const errors: { obj: Record<string, unknown>; msg: string }[] = [];
  const original = log.error.bind(log);
  log.error = ((obj: Record<string, unknown>, msg: string) => { errors.push({ obj, msg }); original(obj, msg); }) as typeof log.error;
  let calls = 0;
  const flaky: FleetStep = {
    name: 'flaky',
    run: async (client) => {
      calls++;
      await client.query(`insert into fleet_worker_trace (worker, step, edge) values ('c', 'flaky', $1)`, [`try ${calls}`]);
      if (calls === 1) throw new Error('the first try fails');
    },
  };
  const failuresBefore = await metric('faultline_fleet_step_failures_total', 'flaky');
  const worker = startFleetWorker({ pool: db.pool, tickMs: 20, steps: [flaky, traced('c', 'after')] });
  try {
    await waitFor('the flaky step to succeed on a later tick', async () => (await db.pool.query(`select 1 from fleet_worker_trace where edge = 'try 2'`)).rowCount === 1);
  } finally {
    await worker.stop();
    log.error = original as typeof log.error;
  }
  const { rows } = await db.pool.query<{ step: string; edge: string }>('select step, edge from fleet_worker_trace order by n');
  // The first try's insert was rolled back; the step after it ran in that same round.
  assert.equal(rows.slice(0, 4).map((r) => `${r.step}:${r.edge}`), ['after:in', 'after:out', 'flaky:try 2', 'after:in']);
  assert.is(await metric('faultline_fleet_step_failures_total', 'flaky'), failuresBefore + 1);
  assert.equal(errors.map((e) => [e.obj.component, e.obj.step, e.obj.err]), [['fleet', 'flaky', 'the first try fails']]);
});

test('stop() waits for the running round; no round starts after it', async () => {
  await db.pool.query('truncate fleet_worker_trace');
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  const order: string[] = [];
  const slow: FleetStep = {
    name: 'slow',
    run: async (client) => {
      order.push('step began');
      await held;
      await client.query(`insert into fleet_worker_trace (worker, step, edge) values ('d', 'slow', 'done')`);
      order.push('step ended');
    },
  };
  const worker = startFleetWorker({ pool: db.pool, tickMs: 60_000, steps: [slow] });
  await waitFor('the round to begin', () => order.includes('step began'));
  const stopped = worker.stop().then(() => { order.push('stopped'); });
  setTimeout(release, 100);
  await stopped;
  assert.equal(order, ['step began', 'step ended', 'stopped']);
  assert.is((await db.pool.query(`select 1 from fleet_worker_trace where edge = 'done'`)).rowCount, 1, 'the round committed before stop() returned');
});

test('runOnce while another process holds the round: skipped, nothing run', async () => {
  const holder = await second.connect();
  try {
    await holder.query('select pg_advisory_lock($1)', [0x666c6574]);
    let ran = false;
    const worker = startFleetWorker({ pool: db.pool, tickMs: 60_000, steps: [{ name: 'x', run: async () => { ran = true; } }] }, { loop: false });
    assert.equal(await worker.runOnce(), { locked: false, ran: [], failed: [] });
    assert.is(ran, false);
    await holder.query('select pg_advisory_unlock($1)', [0x666c6574]);
    assert.equal(await worker.runOnce(), { locked: true, ran: ['x'], failed: [] });
  } finally {
    holder.release();
  }
});

test.run();
