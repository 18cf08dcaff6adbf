// Attacks on the daily health rollup (device_health_days, migration 0033; docs/decisions.md#review-of-the-held-clear-and-the-rollup):
// a hostile device's check-ins, and persist killed in the middle of its statements, on the real Postgres through
// persistBatch (stages/persist/). Each case ends with the rollup equal to the recomputation from the stored
// check-ins (support/fleet-rollup-truth.ts): nothing lost, nothing counted twice, the partition never stopped.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { Temporal } from 'temporal-polyfill';
import { parseQueueMessage } from '../../../domain/validate-message.js';
import { histogramKey, HISTOGRAM_MAX_VALUES } from '../../../fleet/health-day.js';
import { histogramKeySql } from '../../../fleet/health-sql.js';
import { persistBatch } from '../../../stages/persist/index.js';
import { createStagingSql, mergeStatements } from '../../../stages/persist/merge.js';
import type { ComputedCheckIn } from '../../../schemas/avro/values.js';
import { computed } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { compareRollup } from '../../../support/fleet-rollup-truth.js';
import { waitFor } from '../../../support/wait-for.js';
import { emptyTally, reportTally, type Tally } from '../../helpers/tally.js';

const DAY = '2026-11-20';
const tally: Tally = emptyTally();
let db: TestDatabase;
let n = 0;

test.before(async () => { db = await createTestDatabase('fleet_attacks'); });
test.after(async () => {
  reportTally('fleet health rollup: attacks', tally);
  await db?.drop();
});

/** A check-in of device `imei` at `date` with `fields`, validated as the enrich stage does (receive time `now`). */
type Checked = { refused: string } | { message: ComputedCheckIn };
function checkIn(imei: string, date: string, fields: Record<string, unknown> = {}, now = '2026-11-28T00:00:00Z'): Checked {
  const body = JSON.stringify({ device_data: { IMEINumber: imei, date, Ongoing_fault: 0, model: 'FCI-3000', ...fields } });
  const parsed = parseQueueMessage(body, { now: Temporal.Instant.from(now) });
  if (!parsed.ok) return { refused: parsed.reason };
  return { message: computed(parsed.value, { messageId: `attack-${++n}` }) };
}
const must = (r: Checked): ComputedCheckIn => {
  if (!('message' in r)) throw new Error(`refused: ${r.refused}`);
  return r.message;
};
const at = (i: number) => new Date(Date.parse(`${DAY}T00:00:00Z`) + i * 20_000).toISOString();
const dayRow = async (imei: string, day = DAY) => (await db.pool.query<{ received: number; values: number; counted: number; version_length: number | null; connect_time_sum: string }>(
  `select received, cardinality(rssi_values) as values, (select coalesce(sum(c), 0)::int from unnest(rssi_counts) c) as counted,
          length(version) as version_length, connect_time_sum::text
     from device_health_days where "IMEINumber" = $1 and day = $2::date`, [imei, day])).rows[0];
async function exact(what: string): Promise<void> {
  const c = await compareRollup(db.pool);
  assert.is(c.mismatches, 0, `${what}: the rollup equals the recomputation ${JSON.stringify(c.examples)}`);
}

test('a device sending thousands of distinct RSSI values a day: the histogram stays bounded, every reading counted', async () => {
  tally.attacksTried++;
  const imei = '990000000000001';
  const READINGS = 3000;
  const messages = Array.from({ length: READINGS }, (_, i) => must(checkIn(imei, at(i), { rssi: -70 - i / 1000 - (i % 2) * 1e6 })));
  for (let i = 0; i < messages.length; i += 250) await persistBatch(db.pool, messages.slice(i, i + 250));
  const row = await dayRow(imei);
  assert.ok(row);
  assert.is(row.received, READINGS);
  assert.is(row.counted, READINGS, 'every reading is in the histogram');
  assert.ok(row.values <= HISTOGRAM_MAX_VALUES, `${row.values} distinct values kept (at most ${HISTOGRAM_MAX_VALUES})`);
  await exact('distinct RSSI values');
  tally.attacksRefused++;
});

test('the histogram key persist computes in SQL equals the pure fold\'s for awkward doubles', async () => {
  const values = [-70, -70.5, -70.25, -70.75, -0.25, 0.25, -255.5, 255.25, 1e308, -1e308, 5e-324, 0.49999999999999994, -1e-9, ...Array.from({ length: 200 }, (_, i) => -120 + i * 0.6180339887)];
  const { rows } = await db.pool.query<{ k: number }>(`select ${histogramKeySql('v')} as k from unnest($1::double precision[]) with ordinality u(v, o) order by o`, [values]);
  assert.equal(rows.map((r) => r.k), values.map(histogramKey));
});

test('huge, tiny and refused numbers: NaN and Infinity dead-letter at the edge, the largest finite ConnectTime is summed exactly', async () => {
  for (const bad of ['NaN', 'Infinity', '-Infinity', '1e400']) {
    tally.badInputsTried++;
    const body = `{"device_data": {"IMEINumber": "990000000000002", "date": "${DAY}T01:00:00Z", "Ongoing_fault": 0, "ConnectTime": ${bad === 'NaN' || bad.includes('Inf') ? JSON.stringify(bad) : bad}}}`;
    const parsed = parseQueueMessage(body, { now: Temporal.Instant.from('2026-11-28T00:00:00Z') });
    assert.not.ok(parsed.ok, `ConnectTime ${bad} is refused`);
    if (!parsed.ok) assert.match(parsed.reason, 'ConnectTime');
    tally.badInputsRefused++;
  }
  tally.attacksTried++;
  const imei = '990000000000002';
  await persistBatch(db.pool, [1, 2, 3].map((i) => must(checkIn(imei, at(i), { ConnectTime: Number.MAX_VALUE, Temperature: -Number.MAX_VALUE, BatteryMCU: 5e-324 }))));
  const row = await dayRow(imei);
  assert.ok(row);
  assert.is(row.received, 3, 'the batch committed: no overflow aborted it');
  assert.ok(row.connect_time_sum.length > 300, 'the sum is numeric, beyond any double');
  await exact('huge numbers');
  tally.attacksRefused++;
});

test('text fields of huge length (version, reset settings) are stored whole; the batch commits', async () => {
  tally.attacksTried++;
  const imei = '990000000000003';
  const long = 'v'.repeat(900_000);
  await persistBatch(db.pool, [must(checkIn(imei, at(1), { version: long, Tempfault_Reset_Hours: 'x'.repeat(50_000), Current_Reset: 'y'.repeat(50_000) }))]);
  const row = await dayRow(imei);
  assert.is(row?.version_length, long.length);
  await exact('huge text');
  tally.attacksRefused++;
});

test('clock skew: a device claiming 2099 or 1970 is refused at the edge; one claiming yesterday is counted on its own day', async () => {
  for (const date of ['2099-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '1999-12-31T23:59:59Z', '2026-11-29T00:00:01Z']) {
    tally.attacksTried++;
    const r = checkIn('990000000000004', date);
    assert.ok('refused' in r, `${date} is refused (receive time 2026-11-28)`);
    tally.attacksRefused++;
  }
  tally.attacksTried++;
  const imei = '990000000000004';
  // Dated the last millisecond of one day, received the next: its day is the device's.
  await persistBatch(db.pool, [must(checkIn(imei, '2026-11-26T23:59:59.999Z', {}, '2026-11-27T00:10:00Z'))]);
  assert.is((await dayRow(imei, '2026-11-26'))?.received, 1);
  assert.is(await dayRow(imei, '2026-11-27'), undefined);
  await exact('a check-in of another day than its arrival');
  tally.attacksRefused++;
});

interface PlanNode { 'Node Type': string; 'Actual Rows': number; 'Actual Loops': number; Plans?: PlanNode[] }
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

test('the rollup statement\'s work is linear in the batch: no plan node handles more rows than the batch holds, twice over', async () => {
  tally.attacksTried++;
  const N = 200;
  const client = await db.pool.connect();
  try {
    await client.query(createStagingSql);
    await client.query('begin');
    // N check-ins of N devices, staged and noted as inserted, as persist's records statement leaves them.
    await client.query(`insert into fl_stage_records (idx, "IMEINumber", "date", source_message_id, rssi, "Ongoing_fault")
      select i, '99100000' || lpad(i::text, 7, '0'), timestamptz '${DAY}T12:00:00Z', 'm' || i, -60 - i % 40, 0 from generate_series(1, ${N}) i`);
    await client.query(`insert into fl_stage_inserted select idx, "IMEINumber", "date", source_message_id from fl_stage_records`);
    const span = { records: [`${DAY}T12:00:00.000Z`, `${DAY}T12:00:00.000Z`], shifts: null } as const;
    const { rows: [explained] } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) ${mergeStatements(span).health}`);
    const worst = Math.max(...nodes(explained!['QUERY PLAN'][0].Plan).map((n) => n['Actual Rows'] * n['Actual Loops']));
    assert.ok(worst <= 2 * N, `a node handled ${worst} rows for a batch of ${N} (the batch grouped again per device-day)`);
  } finally {
    await client.query('rollback');
    client.release();
  }
  tally.attacksRefused++;
});

test('persist killed in the middle of its statements (its session ended while the rollup statement waits): nothing of the batch stays, and its redelivery counts once', async () => {
  const imei = '990000000000005';
  await persistBatch(db.pool, [must(checkIn(imei, at(1), { rssi: -80 }))]);
  const stored = async () => (await db.pool.query<{ records: number; owed: number }>(
    `select (select count(*)::int from device_records where "IMEINumber" = $1) as records,
            (select count(*)::int from pending_effects where "IMEINumber" = $1) as owed`, [imei])).rows[0]!;
  const before = await stored();
  const batch = [must(checkIn(imei, at(2), { rssi: -81 })), must(checkIn(imei, at(3), { rssi: -82 }))];
  // Another session holds the day row, so persist's script stops at the rollup statement, after its inserts.
  const holder = new pg.Client({ connectionString: db.url });
  await holder.connect();
  try {
    await holder.query('begin');
    await holder.query('select 1 from device_health_days where "IMEINumber" = $1 for update', [imei]);
    const persisting = persistBatch(db.pool, batch).then(() => 'committed', (err: Error) => err.message);
    const holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const pid = await waitFor('persist waiting on the day row', async () => (await db.pool.query<{ pid: number }>(
      'select pid from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [holderPid])).rows[0]?.pid);
    const { rows: [mid] } = await holder.query<{ n: number }>('select count(*)::int as n from device_records where "IMEINumber" = $1', [imei]);
    assert.is(mid!.n, 1, 'uncommitted: the other sessions see none of the batch');
    await db.pool.query('select pg_terminate_backend($1)', [pid]);
    tally.faultsInjected++;
    assert.is.not(await persisting, 'committed', 'the killed batch failed');
    await holder.query('rollback');
  } finally {
    await holder.end();
  }
  assert.equal(await stored(), before, 'neither the records nor what they owe stayed');
  assert.is((await dayRow(imei))?.received, 1, 'nor their day');
  tally.messagesSent += 3;
  await persistBatch(db.pool, batch); // the transport delivers the batch again
  await persistBatch(db.pool, batch); // and once more, after a later crash
  const row = await dayRow(imei);
  assert.is(row?.received, 3, 'each check-in counted once');
  tally.messagesStored += row?.received ?? 0;
  await exact('a killed persist');
});

test.run();
