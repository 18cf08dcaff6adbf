// The fleet health rollup (issue 44 point 1, its first Done-when) through the real pipeline on Kafka and
// Postgres: device_health_days equals a recomputation from the stored check-ins (support/fleet-rollup-truth.ts,
// SQL of its own) and the pure fold (fleet/health-day.ts), and stays equal through a redelivered batch (notify
// fails after persist committed, as a dropped connection would: Kafka delivers the batch again) and a replay of
// fi.raw.v1 from the beginning. Size: FLEET_ROLLUP_CHECKINS (default 4,000; the 1M run:
// bench/results/fleet-rollup.md).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { replay } from '../../../stages/replay.js';
import { installStageWrapper } from '../../../stages/runtime/test-seam.js';
import type { Stage } from '../../../stages/runtime/stage.js';
import { startKafkaRig, type KafkaRig } from '../../../support/pipeline.js';
import { FLEET_PREFIX, fleetCheckIns, fleetImei, INTERVALS_S } from '../../../support/fleet-checkins.js';
import { registerDevices, seedOrganization } from '../../../support/device-data.js';
import { compareRollup } from '../../../support/fleet-rollup-truth.js';
import { dumpTables } from '../../../support/database.js';
import { waitFor } from '../../../support/wait-for.js';
import { foldCheckIn, histogramMedian, type HealthDay } from '../../../fleet/health-day.js';
import { DEVICE_NUMBER_FIELDS, DEVICE_STRING_FIELDS, type DeviceData } from '../../../domain/checkin.js';
import { DEFAULT_FLOOR_S, expectedPerDay } from '../../../domain/checkin-clock.js';
import { emptyTally, reportTally, type Tally } from '../../helpers/tally.js';

const CHECKINS = Number(process.env.FLEET_ROLLUP_CHECKINS ?? 4000);
const DEVICES = Math.max(4, Math.round(CHECKINS / 200));
/** The pure fold is replayed in JavaScript over every stored check-in only up to this size. */
const FOLD_CHECK_MAX = 200_000;

// Notify fails, once each, on the batches holding these check-ins, after persist committed them: as a dropped
// database connection would (an outage), so the transport delivers the whole batch again.
const redeliverOn = new Set<string>();
let redelivered = 0;
installStageWrapper((stage: Stage<never>) => (stage.name !== 'notify' ? stage : {
  ...stage,
  async handle(batch, controls) {
    for (const m of batch.messages) {
      const d = (m.value as { checkIn: { device_data: DeviceData } }).checkIn.device_data;
      const key = `${d.IMEINumber}@${d.date}`;
      if (redeliverOn.delete(key)) {
        redelivered++;
        throw new Error('Connection terminated unexpectedly (injected: notify lost the database after persist committed)');
      }
    }
    return stage.handle(batch, controls);
  },
}));

let rig: KafkaRig;
const tally: Tally = emptyTally();
let counted = false;
test.before(async () => {
  rig = await startKafkaRig('fleet-health');
  // Registered devices: the communication-lost clock (checkin_clock) learns only theirs.
  await seedOrganization(rig.db.pool, 'fleet');
  await registerDevices(rig.db.pool, { prefix: FLEET_PREFIX, devices: DEVICES, org: 'fleet', powerLines: ['fleet-F12', 'fleet-F7'], groups: ['fleet-east', 'fleet-west'] });
});
test.after(async () => {
  installStageWrapper((s) => s);
  await rig?.stop();
  reportTally('fleet health rollup', counted ? tally : null);
});

const endMs = Date.now() - 3_600_000;
const { messages, resent } = fleetCheckIns({ devices: DEVICES, checkIns: CHECKINS, endMs });

/** Every stored check-in folded by the pure rule, in a shuffled order, keyed IMEI@day. */
async function foldedByRule(): Promise<Map<string, HealthDay>> {
  const fields = ['IMEINumber', 'date', 'Ongoing_fault', ...DEVICE_NUMBER_FIELDS, ...DEVICE_STRING_FIELDS];
  const { rows } = await rig.db.pool.query<Record<string, unknown>>(`select ${fields.map((f) => `"${f}"`).join(', ')} from device_records order by md5("RecordID"::text)`);
  const days = new Map<string, HealthDay>();
  for (const r of rows) {
    const d = { ...r, date: (r.date as Date).toISOString() } as unknown as DeviceData;
    const key = `${d.IMEINumber}@${d.date.slice(0, 10)}`;
    days.set(key, foldCheckIn(days.get(key) ?? null, d));
  }
  return days;
}

interface StoredDay { IMEINumber: string; day: string; values: Record<string, unknown>; rssi_values: number[]; rssi_counts: number[]; interval_s: number | null }

async function storedDays(): Promise<StoredDay[]> {
  const { rows } = await rig.db.pool.query<Record<string, unknown>>(`select *, to_char(day, 'YYYY-MM-DD') as day_text from device_health_days order by 1, 2`);
  return rows.map((r) => ({ IMEINumber: r.IMEINumber as string, day: r.day_text as string, values: r, rssi_values: r.rssi_values as number[], rssi_counts: r.rssi_counts as number[], interval_s: r.interval_s as number | null }));
}

async function assertRollupExact(when: string): Promise<void> {
  const c = await compareRollup(rig.db.pool);
  assert.is(c.mismatches, 0, `${when}: ${c.mismatches} mismatching rows, e.g. ${JSON.stringify(c.examples, null, 1)}`);
  assert.is(c.rollupRows, c.truthRows, when);
  console.log(`fleet rollup ${when}: ${c.rollupRows} device-days from ${CHECKINS} check-ins, ${c.mismatches} mismatches`);
}

test('every check-in through the pipeline (some resent, some late, some batches delivered twice): the rollup equals a recomputation from the stored check-ins', async () => {
  // Five original check-ins, spread over the run, make their batches be delivered again (each redelivery waits
  // out the transport's back-off, so a few).
  const originals = messages.filter((m) => !m.name.endsWith('-again'));
  [1, 2, 3, 4, 5].map((k) => originals[Math.floor((k * originals.length) / 6)]!).forEach((m) => {
    const d = (JSON.parse(m.body) as { device_data: DeviceData }).device_data;
    redeliverOn.add(`${d.IMEINumber}@${d.date}`);
  });
  const injected = redeliverOn.size;
  const started = Date.now();
  // In chunks, each drained before the next: a live queue's batches, not one backlog (the clock learns between them).
  for (let i = 0; i < messages.length; i += 500) {
    await rig.pipe.feed(messages.slice(i, i + 500));
    await rig.pipe.drain(600_000);
  }
  console.log(`fleet rollup: ${messages.length} messages through the pipeline in ${Date.now() - started} ms`);
  await waitFor('every injected redelivery', () => redeliverOn.size === 0, { timeoutMs: 60_000 });
  assert.is(redelivered, injected);

  const stored = Number((await rig.db.pool.query('select count(*) from device_records')).rows[0].count);
  assert.is(stored, CHECKINS, 'each distinct check-in stored once (resent copies and redelivered batches add none)');
  await assertRollupExact('after the first delivery');

  Object.assign(tally, { faultsInjected: injected, messagesSent: messages.length, messagesStored: stored, duplicated: Math.max(0, stored - CHECKINS), lost: Math.max(0, CHECKINS - stored) });
  counted = true;
  assert.ok(resent > 0, 'the run resent some check-ins');
});

test('the pure fold (fleet/health-day.ts) gives the rows persist wrote, and each day\'s RSSI median is exact', async () => {
  const days = await storedDays();
  if (CHECKINS <= FOLD_CHECK_MAX) {
    const folded = await foldedByRule();
    assert.is(days.length, folded.size);
    for (const row of days) {
      const rule = folded.get(`${row.IMEINumber}@${row.day}`)!;
      for (const [name, value] of Object.entries(rule.values)) {
        const got = row.values[name];
        const norm = (v: unknown) => (v instanceof Date ? v.toISOString() : typeof v === 'string' && name === 'connect_time_sum' ? Number(v) : v);
        const want = name === 'connect_time_sum' ? Number((value as number).toFixed(6)) : value;
        assert.equal(name === 'connect_time_sum' ? Number((norm(got) as number).toFixed(6)) : norm(got), want, `${row.IMEINumber} ${row.day} ${name}`);
      }
      assert.equal(row.rssi_values.map((v, i) => [v, row.rssi_counts[i]]), rule.rssi.map(([v, n]) => [v, n]), `${row.IMEINumber} ${row.day} rssi histogram`);
    }
  }
  // The median from the histogram against PostgreSQL's own over the stored values.
  const { rows } = await rig.db.pool.query<{ imei: string; day: string; median: number | null }>(
    `select "IMEINumber" as imei, to_char(("date" at time zone 'UTC')::date, 'YYYY-MM-DD') as day, percentile_cont(0.5) within group (order by rssi) as median
       from device_records group by 1, 2`);
  const byKey = new Map(days.map((d) => [`${d.IMEINumber}@${d.day}`, d]));
  for (const r of rows) {
    const d = byKey.get(`${r.imei}@${r.day}`)!;
    assert.is(histogramMedian(d.rssi_values.map((v, i) => [v, d.rssi_counts[i]!] as const)), r.median, `${r.imei} ${r.day}`);
  }
});

test('interval_s is the device\'s learned check-in interval (the communication-lost clock), and the expected check-ins follow from it', async () => {
  const days = await storedDays();
  let learned = 0;
  for (const d of days) {
    if (d.interval_s === null) continue;
    learned++;
    const index = Number(d.IMEINumber.slice(-8)) - 1;
    const interval = INTERVALS_S[index % INTERVALS_S.length]!;
    // Each check-in is up to a second late (support/fleet-checkins.ts), and a late arrival is skipped by the clock.
    assert.ok(Math.abs(d.interval_s - interval) <= 2, `${d.IMEINumber} ${d.day}: ${d.interval_s} s, device checks in every ${interval} s`);
    assert.is(expectedPerDay(d.interval_s, DEFAULT_FLOOR_S), Math.round(86_400 / Math.max(d.interval_s, DEFAULT_FLOOR_S)));
  }
  // A day whose check-ins all reached persist before notify had learned the clock (a device's first day, or a
  // backlog read in large batches) keeps null: docs/decisions.md#fleet-health-rollup-issue-44-fleet.
  assert.ok(learned > days.length / 2, `${learned} of ${days.length} days carry the learned interval`);
  assert.ok(days.some((d) => d.IMEINumber === fleetImei(FLEET_PREFIX, 0)));
});

test('a replay of fi.raw.v1 from the beginning changes no day row, and the rollup still equals the recomputation', async () => {
  const before = (await dumpTables(rig.db.pool)).device_health_days;
  const result = await replay({ transport: rig.transport, from: 0, pollMs: 200, applyTimeoutMs: 1_800_000 });
  assert.ok(result.caughtUp, JSON.stringify({ ...result, group: '' }));
  assert.equal((await dumpTables(rig.db.pool)).device_health_days, before);
  await assertRollupExact('after a replay');
});

test('replay --reprocess, twice, from the beginning: no day counted twice, the rollup still equals the recomputation', async () => {
  // Reprocessed copies update the stored records (their derived columns) and insert none: the rollup counts only
  // a record its transaction inserted (docs/decisions.md#review-of-fleet-health-as-a-crash).
  const before = (await dumpTables(rig.db.pool)).device_health_days;
  for (let i = 0; i < 2; i++) {
    const result = await replay({ transport: rig.transport, from: 0, reprocess: true, pollMs: 200, applyTimeoutMs: 1_800_000 });
    assert.ok(result.caughtUp, JSON.stringify({ ...result, group: '' }));
  }
  assert.equal((await dumpTables(rig.db.pool)).device_health_days, before);
  await assertRollupExact('after two reprocessing replays');
});

test.run();
