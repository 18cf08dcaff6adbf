// A check-in dated ahead of now (a device clock ahead; parsing lets up to 24 h through) through the real pipeline
// (Kafka, the schema registry, Postgres): the communication-lost clock counts it as made when notify handled it,
// so the device's next true check-in still moves its clock (docs/decisions.md#silence-judged-against-the-pipelines-progress).
// On the code before, the clock stood a day ahead: the device counted as online for a day after falling silent,
// and its true check-ins after it were ignored as late history.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startKafkaRig, type KafkaRig } from '../../../support/pipeline.js';
import { checkIn, HOUR } from '../fleet/quiet-feeder.js';

const test = suite('a check-in dated ahead of now');
const IMEI = '861000000000100'; // a demo device (support/reference-data.ts)
let rig: KafkaRig;

const clock = async () => (await rig.db.pool.query<{ last: Date }>('select last_date as last from checkin_clock where "IMEINumber" = $1', [IMEI])).rows[0]?.last.getTime() ?? null;

test.before(async () => { rig = await startKafkaRig('future-checkin'); });
test.after(async () => { await rig?.stop(); });

test('counted as made when handled; the next true check-in moves the clock', async () => {
  const sent = Date.now();
  await rig.pipe.feed([checkIn(IMEI, Math.floor((sent + 23 * HOUR) / 1000) * 1000)]);
  await rig.pipe.drain(120_000);
  const handled = Date.now();
  const first = await clock();
  assert.ok(first !== null && first >= sent - 1_000 && first <= handled, `the clock is not a day ahead (${first === null ? 'none' : new Date(first).toISOString()})`);

  // The device's next true check-in, a moment later (whole seconds, as devices date them; after the first was handled).
  await new Promise((r) => setTimeout(r, 1_100));
  const trueNext = Math.floor(Date.now() / 1000) * 1000;
  await rig.pipe.feed([checkIn(IMEI, trueNext)]);
  await rig.pipe.drain(120_000);
  assert.is(await clock(), trueNext, 'the true check-in moved the clock');
});

test.run();
