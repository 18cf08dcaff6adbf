// Bad input on the real broker: not JSON, no IMEINumber, wrong field types and a 5 MB body are each
// dead-lettered with a reason (fi.dlq.v1 -> rejected_messages), and the pipeline keeps going: a good
// message sent after them is stored.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixtureText } from '../../../support/checkins.js';
import { startKafkaRig, type KafkaRig } from '../../../support/pipeline.js';

let rig: KafkaRig;
test.before(async () => { rig = await startKafkaRig('badinput'); });
test.after(async () => { await rig?.stop(); });

const good = JSON.parse(fixtureText('001-plain-checkin.json')) as { device_data: Record<string, unknown> };
const variant = (change: (m: typeof good) => void) => {
  const m = structuredClone(good);
  change(m);
  return JSON.stringify(m);
};

const BAD: { name: string; body: string; code: string; reason: RegExp }[] = [
  { name: 'not-json', body: '{"device_data": {"IMEINumber": "861000000000000", "date": ', code: 'MALFORMED', reason: /JSON/i },
  { name: 'no-imei', body: variant((m) => { delete m.device_data.IMEINumber; }), code: 'INVALID', reason: /IMEINumber/ },
  { name: 'wrong-types', body: variant((m) => { m.device_data.rssi = { dBm: -71 }; m.device_data.date = 'yesterday'; }), code: 'INVALID', reason: /rssi.*date|date.*rssi/s },
  { name: 'hourly-23', body: variant((m) => { (m as unknown as { currents: { HourlyAverages: number[] } }).currents.HourlyAverages.pop(); }), code: 'INVALID', reason: /HourlyAverages/ },
  { name: 'five-megabytes', body: variant((m) => { m.device_data.Program = 'x'.repeat(5 * 1024 * 1024); }), code: 'TOO_LARGE', reason: /./ },
];

test('each bad message is dead-lettered with its code and a reason naming the problem', async () => {
  await rig.pipe.feed(BAD.map(({ name, body }) => ({ name, body })));
  await rig.pipe.drain(60_000);
  const rows = (await rig.db.pool.query(`select message_id, code, reason, stage, length(body) as len from rejected_messages order by message_id`)).rows;
  for (const bad of BAD) {
    const row = rows.find((r) => r.message_id === bad.name);
    assert.ok(row, `${bad.name} is in rejected_messages`);
    assert.is(row.code, bad.code, bad.name);
    assert.match(row.reason, bad.reason, bad.name);
    assert.ok(row.len > 0, `${bad.name} keeps its body`);
  }
  assert.is(Number((await rig.db.pool.query('select count(*) from device_records')).rows[0].count), 0);
});

test('the pipeline keeps going: a good message after them is stored', async () => {
  await rig.pipe.feed([{ name: 'good', body: JSON.stringify(good) }]);
  await rig.pipe.drain(60_000);
  assert.is(Number((await rig.db.pool.query(`select count(*) from device_records where "IMEINumber" = '861000000000000'`)).rows[0].count), 1);
});

test.run();
