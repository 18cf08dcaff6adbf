// Silent-device triage judged at the pipeline's progress (docs/decisions.md#silence-judged-against-the-pipelines-progress):
// feeder north-F9 (test/integration/incidents/feeder.ts) reports every 15 minutes through the real pipeline
// (Kafka, the schema registry, Postgres) for three hours, then nothing more is stored: the pipeline is behind
// (its check-ins wait in a backlog), or the whole feeder truly went quiet. The triage step runs at chosen instants.
//   - two hours on, the last check-in stored within the lag bound: nothing is silent, no possible de-energised section (on the code before,
//     the whole line read as de-energised and its section opened with an alarm);
//   - five hours on, nothing stored for longer than the bound: judged at now - bound, the silence is found (late by at most the bound).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTransaction } from '../../../db/transaction.js';
import { triageSilence } from '../../../fleet-health/triage.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { startKafkaRig, type KafkaRig } from '../../../support/pipeline.js';
import { IMEI, topologyFile } from '../incidents/feeder.js';
import { every15, HOUR, MIN } from './quiet-feeder.js';

const test = suite('silent-device triage during a backlog');
const LIMITS = { floorS: 300, ceilingS: 26 * 3600, lagBoundS: 4 * 3600 };
// Device time in the past of the wall clock (the pipeline takes no future check-ins).
const B = Math.floor((Date.now() - 11 * HOUR) / MIN) * MIN;
const F9 = Object.values(IMEI);
let rig: KafkaRig;

const triage = (at: number) => withTransaction(rig.db.pool, (client) => triageSilence(client, new Date(at), LIMITS));
const silentF9 = async () => (await rig.db.pool.query<{ IMEINumber: string; label: string }>(
  'select "IMEINumber", label from device_silence where "IMEINumber" = any($1) order by 1', [F9])).rows;
const openSections = async () => (await rig.db.pool.query<{ PowerLineID: string }>(`select "PowerLineID" from deenergised_sections where status = 'open'`)).rows;

test.before(async () => {
  rig = await startKafkaRig('fleet-triage-backlog');
  await importReferenceData(rig.db.pool, topologyFile());
  const messages = every15(F9, B, B + 3 * HOUR);
  for (let i = 0; i < messages.length; i += 200) await rig.pipe.feed(messages.slice(i, i + 200));
  await rig.pipe.drain(120_000);
  // Stored as they were made (a minute after), on this suite's device-time line rather than the wall clock's.
  await rig.db.pool.query(`update checkin_clock set stored_at = last_date + interval '1 minute' where "IMEINumber" = any($1)`, [F9]);
});
test.after(async () => { await rig?.stop(); });

test('the pipeline two hours behind, within the bound: no silent device, no possible de-energised section', async () => {
  const r = await triage(B + 5 * HOUR);
  assert.equal(await silentF9(), [], 'devices whose check-ins wait in the backlog are not silent');
  assert.equal([r.sections.opened, await openSections()], [[], []], 'no section opened');
});

test('nothing stored for longer than the bound: judged at now - bound, the quiet feeder is found', async () => {
  const r = await triage(B + 8 * HOUR);
  const rows = await silentF9();
  assert.equal(rows.map((x) => x.IMEINumber), [...F9].sort(), 'every device of the feeder is silent');
  assert.ok(rows.every((x) => x.label === 'deenergised'), JSON.stringify(rows));
  assert.is(r.sections.opened.length, 1);
  assert.equal(await openSections(), [{ PowerLineID: 'north-F9' }]);
});

test.run();
