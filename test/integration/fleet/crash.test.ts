// The fleet worker as a crash and as concurrency (docs/decisions.md#review-of-fleet-health-as-a-crash): check-ins
// through the real pipeline (Kafka, registry, Postgres) as in triage.test.ts (feeder north-F9, its lateral A quiet
// while the rest reports), then rounds of the real fleet worker with its real steps in child processes
// (fleet-round.ts) killed or held at the seams of config/failpoints.ts:
//   - fleet.sections-written: triage wrote the sections it opened or closed, not their alarms;
//   - fleet.between-steps: a step committed (assess), the next (triage) not begun;
// and a second worker while one holds the round. Each case: nothing half written stays, the next round converges,
// each section's alarm is raised once and cleared once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SEAMS, type Seam } from '../../../config/failpoints.js';
import { DEENERGISED_SECTION } from '../../../domain/alarm-kinds.js';
import { fleetSteps } from '../../../fleet-health/steps.js';
import { startFleetWorker } from '../../../fleet-health/worker.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { startKafkaRig, type KafkaRig } from '../../../support/pipeline.js';
import { waitFor } from '../../../support/wait-for.js';
import { emptyTally, reportTally, type Tally } from '../../helpers/tally.js';
import { IMEI, topologyFile } from '../incidents/feeder.js';
import { FLEET_STEP_SETTINGS } from './crash-settings.js';
import { every15, HOUR, MIN } from './quiet-feeder.js';

const test = suite('fleet worker as a crash');
const CHILD = fileURLToPath(new URL('./fleet-round.ts', import.meta.url));
const B = Math.floor((Date.now() - 11 * HOUR) / MIN) * MIN;
const F9_LIVE = [IMEI.H, IMEI.T1, IMEI.T2, IMEI.LB1];
const LATERAL = [IMEI.LA1, IMEI.LA2];
const tally: Tally = emptyTally();
let rig: KafkaRig;

async function feed(messages: { name: string; body: string }[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 200) await rig.pipe.feed(messages.slice(i, i + 200));
  await rig.pipe.drain(120_000);
}

const childEnv = (nowMs: number, failpoint: string) => ({ ...process.env, DATABASE_URL: rig.db.url, NOW_MS: String(nowMs), FAULTLINE_FAILPOINTS: failpoint });
/** A round in a child process armed to die at `seam`; it must die there. */
function roundKilled(nowMs: number, seam: Seam): void {
  const child = spawnSync(process.execPath, ['--import', 'tsx', CHILD], { env: childEnv(nowMs, `${seam}=exit`), encoding: 'utf8', timeout: 180_000 });
  assert.is(child.signal, 'SIGKILL', `the fleet worker died by SIGKILL\n${child.stdout}\n${child.stderr}`);
  assert.match(child.stderr, `failpoint ${seam}: exit`, 'at the seam');
  tally.faultsInjected++;
}
const worker = (nowMs: number) => startFleetWorker({ pool: rig.db.pool, tickMs: 60_000, clock: () => new Date(nowMs), steps: fleetSteps(FLEET_STEP_SETTINGS) }, { loop: false });
/** A whole round in this process, once a killed process's session (and its lock) is gone. */
const round = (nowMs: number) => waitFor('a fleet round that holds the lock', async () => {
  const r = await worker(nowMs).runOnce();
  return r.locked ? r : null;
});

const sections = async () => (await rig.db.pool.query<{ id: string; point_imei: string; status: string }>(
  'select id, point_imei, status from deenergised_sections order by id')).rows.map((s) => [s.point_imei, s.status]);
/** Each de-energised section alarm: its device, whether it is cleared, and how many raise and clear changes it has. */
const sectionAlarms = async () => (await rig.db.pool.query<{ imei: string; cleared: boolean; raised: number; clears: number }>(
  `select a."IMEINumber" as imei, a.cleared_at is not null as cleared,
          (select count(*)::int from alarm_changes c where c.alarm_id = a.id and c.change = 'raised') as raised,
          (select count(*)::int from alarm_changes c where c.alarm_id = a.id and c.change = 'cleared') as clears
     from alarms a where a.kind = $1 order by a.id`, [DEENERGISED_SECTION])).rows.map((a) => [a.imei, a.cleared, a.raised, a.clears]);
/** Every section has its alarm and every alarm its section: an open section's alarm open, a closed one's cleared. */
const sectionsMatchAlarms = async () => (await rig.db.pool.query<{ id: string }>(
  `select s.id from deenergised_sections s
    where (select count(*) from alarms a where a.kind = $1 and a.episode = 'deenergised:' || s.id
             and (a.cleared_at is null) = (s.status = 'open')) <> 1`, [DEENERGISED_SECTION])).rows.map((r) => r.id);
const assessedAt = async (table: 'device_health' | 'device_silence') => (await rig.db.pool.query<{ at: Date | null }>(
  `select max(assessed_at) as at from ${table}`)).rows[0]!.at?.getTime() ?? null;
const silenceLabels = async () => (await rig.db.pool.query<{ imei: string; label: string }>(
  'select "IMEINumber" as imei, label from device_silence where "IMEINumber" = any($1) order by 1', [[...F9_LIVE, ...LATERAL]])).rows.map((r) => [r.imei, r.label]);

test.before(async () => {
  rig = await startKafkaRig('fleet-crash');
  await importReferenceData(rig.db.pool, topologyFile());
  await feed([...every15([...F9_LIVE, ...LATERAL], B, B + 3 * HOUR), ...every15(F9_LIVE, B + 3 * HOUR + 15 * MIN, B + 6 * HOUR)]);
});
test.after(async () => {
  reportTally('fleet worker as a crash', tally);
  await rig?.stop();
});

test('the seams are declared', () => {
  assert.ok('fleet.sections-written' in SEAMS && 'fleet.between-steps' in SEAMS);
});

test('killed after writing a new section, before raising its alarm: neither stays; the next round opens one and raises it once', async () => {
  roundKilled(B + 6 * HOUR, 'fleet.sections-written');
  assert.equal(await sections(), [], 'no section without its alarm');
  assert.equal(await sectionAlarms(), [], 'no alarm without its section');
  assert.ok((await assessedAt('device_health')) === B + 6 * HOUR, 'the step before (assess) had committed');
  assert.is(await assessedAt('device_silence'), null, 'the killed step left nothing');
  await round(B + 6 * HOUR + MIN);
  await round(B + 6 * HOUR + 2 * MIN);
  tally.messagesSent++;
  assert.equal(await sections(), [[IMEI.LA1, 'open']]);
  const alarms = await sectionAlarms();
  assert.equal(alarms, [[IMEI.LA1, false, 1, 0]], 'one alarm, raised once');
  assert.equal(await sectionsMatchAlarms(), []);
  tally.messagesStored += alarms.length;
});

test('killed between assess and triage: the health is newer than the silence until the next round, which converges to the same labels', async () => {
  const before = await silenceLabels();
  roundKilled(B + 6 * HOUR + 3 * MIN, 'fleet.between-steps');
  assert.is(await assessedAt('device_health'), B + 6 * HOUR + 3 * MIN, 'assess committed');
  assert.is(await assessedAt('device_silence'), B + 6 * HOUR + 2 * MIN, 'triage still the last round\'s: its rows whole, never half replaced');
  await round(B + 6 * HOUR + 4 * MIN);
  assert.is(await assessedAt('device_silence'), B + 6 * HOUR + 4 * MIN);
  assert.equal(await silenceLabels(), before, 'the same labels as a round never killed');
  assert.equal(before, LATERAL.map((imei) => [imei, 'deenergised']));
  assert.equal(await sectionAlarms(), [[IMEI.LA1, false, 1, 0]], 'still the one alarm, raised once');
});

test('two workers (two `faultline start`): while one holds the round the other skips it; the holder killed, the other takes over', async () => {
  const holder = spawn(process.execPath, ['--import', 'tsx', CHILD], { env: childEnv(B + 6 * HOUR + 5 * MIN, 'fleet.between-steps=hold'), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  holder.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  try {
    await waitFor('the first worker to hold its round after a step', () => stderr.includes('failpoint fleet.between-steps: hold'), { timeoutMs: 120_000 });
    assert.equal(await worker(B + 6 * HOUR + 6 * MIN).runOnce(), { locked: false, ran: [], failed: [] }, 'one round at a time');
  } finally {
    holder.kill('SIGKILL');
  }
  tally.faultsInjected++;
  const r = await round(B + 6 * HOUR + 7 * MIN);
  assert.equal([r.ran, r.failed], [['assess', 'triage', 'drift'], []], 'the lock went with the killed process');
  assert.equal(await sections(), [[IMEI.LA1, 'open']]);
  assert.equal(await sectionAlarms(), [[IMEI.LA1, false, 1, 0]]);
});

test('the lateral reports again; killed after closing the section, before clearing its alarm: neither; the next round closes and clears once', async () => {
  await feed(every15([...F9_LIVE, ...LATERAL], B + 6 * HOUR + 15 * MIN, B + 7 * HOUR));
  roundKilled(B + 7 * HOUR, 'fleet.sections-written');
  assert.equal(await sections(), [[IMEI.LA1, 'open']], 'the section is not closed without its alarm cleared');
  assert.equal(await sectionAlarms(), [[IMEI.LA1, false, 1, 0]]);
  await round(B + 7 * HOUR + MIN);
  await round(B + 7 * HOUR + 2 * MIN);
  tally.messagesSent++;
  assert.equal(await sections(), [[IMEI.LA1, 'closed']]);
  const alarms = await sectionAlarms();
  assert.equal(alarms, [[IMEI.LA1, true, 1, 1]], 'cleared once');
  assert.equal(await sectionsMatchAlarms(), []);
  tally.messagesStored += alarms.length;
});

test.run();
