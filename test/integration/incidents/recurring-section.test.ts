// Hot spots as alarms (issue 43 point 2, "Done when": the alarm fires within one incident round after the third
// momentary in 30 days, and not for three spread over 31). Check-ins through the real pipeline on Kafka and the
// schema registry into Postgres, the feeder's topology imported with `faultline import`'s code, the incident
// worker's rounds; each incident trips one lateral's indicator, so its section is the one below it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RECURRING_SECTION } from '../../../domain/alarm-kinds.js';
import { namesFaultClass } from '../../../domain/fault-masking.js';
import { startIncidentWorker, type IncidentWorker } from '../../../incidents/worker.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { startKafkaRig, type KafkaRig } from '../../../support/pipeline.js';
import { checkInAt, IMEI, topologyFile, type Name } from './feeder.js';

const test = suite('recurring-section alarm through the pipeline');
const DAY_MIN = 24 * 60;
const NOW = Date.now();
const checkIn = checkInAt(NOW);
let rig: KafkaRig;
let worker: IncidentWorker;

/** A momentary fault on `name`'s lateral `daysAgo` days before now (device time): a TFault with code 2, then the check-in without it. */
function momentary(name: Name, daysAgo: number, type = 'TFault', code = 2) {
  const at = -daysAgo * DAY_MIN;
  return [checkIn(name, at + 1, code, [{ type, atMin: at }]), checkIn(name, at + 2, 0)];
}

async function feed(messages: { name: string; body: string }[]): Promise<void> {
  await rig.pipe.feed(messages);
  await rig.pipe.drain(60_000);
}

const hotSpots = async (imei: string) => (await rig.db.pool.query<{ id: string; detail: Record<string, unknown>; cleared_at: Date | null; raised: number }>(
  `select a.id, a.detail, a.cleared_at, (select count(*)::int from alarm_changes c where c.alarm_id = a.id and c.change = 'raised') as raised
     from alarms a where a.kind = $1 and a."IMEINumber" = $2 order by a.id`, [RECURRING_SECTION, imei])).rows;

test.before(async () => {
  rig = await startKafkaRig('hotspots');
  await importReferenceData(rig.db.pool, topologyFile());
  worker = startIncidentWorker({ pool: rig.db.pool }, { loop: false });
});
test.after(async () => {
  await worker?.stop();
  await rig?.stop();
});

test('the third momentary in 30 days raises one recurring-section alarm in that round; replays and a fourth raise nothing more', async () => {
  const first = momentary('LA1', 29);
  const second = momentary('LA1', 15);
  const third = momentary('LA1', 1 / 24);
  await feed(first);
  await worker.runOnce();
  await feed(second);
  await worker.runOnce();
  const incidents = (await rig.db.pool.query<{ kind: string; from: string }>(`select kind, sections->0->'from'->>'imei' as from from incidents order by id`)).rows;
  assert.equal(incidents, [{ kind: 'momentary', from: IMEI.LA1 }, { kind: 'momentary', from: IMEI.LA1 }], 'two located momentary incidents below LA1');
  assert.equal(await hotSpots(IMEI.LA1), [], 'two are not a hot spot');

  await feed(third);
  await worker.runOnce();
  const [alarm, ...more] = await hotSpots(IMEI.LA1);
  assert.ok(alarm, 'raised in the round that took the third');
  assert.equal(more, []);
  assert.is(alarm!.raised, 1, 'one raise to route');
  assert.is(alarm!.cleared_at, null);
  assert.equal([alarm!.detail.count, alarm!.detail.days, alarm!.detail.section], [3, 30, 'Lateral A']);
  assert.is(alarm!.detail.summary, '3 momentary incidents within 30 days in section Lateral A');

  // A replayed batch (the same check-ins again) and more rounds: nothing twice.
  await feed([...first, ...second, ...third]);
  await worker.runOnce();
  await worker.runOnce();
  assert.is((await rig.db.pool.query('select count(*)::int as n from incidents')).rows[0].n, 3, 'the replay made no incident');
  // A fourth momentary in the same window: still the one alarm of the section.
  await feed(momentary('LA1', 1 / 48));
  await worker.runOnce();
  const after = await hotSpots(IMEI.LA1);
  assert.is(after.length, 1, 'one alarm per section while it holds, not one per incident');
  assert.is(after[0]!.raised, 1);
  assert.equal([after[0]!.detail.count, after[0]!.detail.summary], [4, '4 momentary incidents within 30 days in section Lateral A'], 'the open alarm takes the new count');
});

test('three momentaries spread over 31 days raise nothing', async () => {
  await feed(momentary('LB1', 31));
  await worker.runOnce();
  await feed(momentary('LB1', 16));
  await worker.runOnce();
  await feed(momentary('LB1', 0.01));
  await worker.runOnce();
  const below = (await rig.db.pool.query<{ n: number }>(`select count(*)::int as n from incidents where kind = 'momentary' and sections->0->'from'->>'imei' = $1`, [IMEI.LB1])).rows[0]!.n;
  assert.is(below, 3, 'three located momentary incidents below LB1');
  assert.equal(await hotSpots(IMEI.LB1), []);
});

test('the alarm ends by time: 16 days on, only two of its four incidents lie in the last 30 days', async () => {
  const later = startIncidentWorker({ pool: rig.db.pool, clock: () => new Date(NOW + 16 * 86_400_000) }, { loop: false });
  await later.runOnce();
  const [alarm] = await hotSpots(IMEI.LA1);
  assert.ok(alarm!.cleared_at, 'cleared: fewer than 3 in the last 30 days');
  const changes = (await rig.db.pool.query<{ change: string }>('select change from alarm_changes where alarm_id = $1 order by id', [alarm!.id])).rows.map((r) => r.change);
  assert.equal(changes, ['raised', 'cleared']);
});

test('a masked organisation counts every incident of the section, and its alarm names no class', async () => {
  await rig.db.pool.query(`update organizations set "MaskFaultDetails" = true, "RecurringSectionIncidents" = 2, "RecurringSectionDays" = 10 where "OrganizationID" = 'north'`);
  // One momentary and one permanent below T2 within 10 days: 2 of 2 for the masked organisation.
  await feed(momentary('T2', 5));
  await worker.runOnce();
  assert.equal(await hotSpots(IMEI.T2), []);
  await feed(momentary('T2', 0.02, 'PFault', 4));
  await worker.runOnce();
  const [alarm] = await hotSpots(IMEI.T2);
  assert.ok(alarm, 'raised after the second incident of any kind');
  const text = JSON.stringify(alarm!.detail);
  assert.not.ok(namesFaultClass(text), text);
  assert.is(alarm!.detail.summary, '2 incidents within 10 days in section below F9 T2');
});

test.run();
