import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeApdu } from '../../iec104/apci/apci.js';
import { decodeAsdu } from '../../iec104/asdu/index.js';
import { applyDevice } from '../../iec104/data/apply.js';
import { floatIoa, singleIoa } from '../../iec104/data/point-map.js';
import { Iec104Outstation } from '../../iec104/outstation.js';
import { DEFAULT_TIMERS, Station } from '../../iec104/station/station.js';
import type { DeviceSnapshot } from '../../points/device-points.js';

const CLOCK = { floorS: 300, ceilingS: 26 * 3600 };
const T = Date.parse('2026-11-25T14:05:00Z');
const dev = (over: Partial<DeviceSnapshot> = {}): DeviceSnapshot => ({
  imei: '861', slot: 8002, name: null, date: T, actualOngoingFault: 0, batteryOrLine: 1, averageCurrent1m: 10, prefaultCurrent: 2,
  faultCurrent: null, faultTime: null, peakCurrent24h: 4, averageCurrent1h: 5, batteryMcu: 6, temperature: 7, ...over,
});

/** A connection's station as the outstation's sink, like Iec104Session. */
function connect(o: Iec104Outstation) {
  const st = new Station(o.handlers, DEFAULT_TIMERS, T);
  const sent: Uint8Array[] = [];
  const sink = { enqueue: (a: readonly Uint8Array[]) => sent.push(...st.enqueue(a, T).send), displace: () => o.detach(sink, st.drain()) };
  o.attach(sink);
  return { st, sink, sent, ioas: () => sent.map(decodeApdu).flatMap((f) => (f.format === 'I' ? decodeAsdu(f.asdu).objects.map((x) => x.ioa) : [])) };
}

test('the first value is no event; a change of state or past the deadband is; a bank answers at CA base + bank', () => {
  const o = new Iec104Outstation(5);
  assert.is(applyDevice(o, dev(), T, CLOCK, false), 0);
  assert.equal(o.image.commonAddresses(), [5, 6]); // bank 0 always answers; slot 8002 is bank 1
  assert.is(applyDevice(o, dev({ averageCurrent1m: 10.5 }), T, CLOCK, false), 0); // within 1 A
  // code 4: fault active and permanent fault (2 single points), the code and the current (2 floats)
  assert.is(applyDevice(o, dev({ averageCurrent1m: 12, actualOngoingFault: 4, date: T + 1000 }), T, CLOCK, false), 4);
  assert.is(o.pending, 2); // one M_SP_TB_1 and one M_ME_TF_1, waiting for a connection
});

test('events wait for STARTDT, then leave in order; what a dropped connection had not had acknowledged goes to the next one', () => {
  const o = new Iec104Outstation(1);
  applyDevice(o, dev(), T, CLOCK, false);
  const a = connect(o);
  applyDevice(o, dev({ actualOngoingFault: 4, date: T + 1000 }), T, CLOCK, false);
  assert.is(a.st.queued, 2);
  a.sent.push(...a.st.handle({ format: 'U', fn: 'STARTDT_ACT' }, T).send);
  assert.equal(a.ioas(), [singleIoa(2, 0), singleIoa(2, 1), floatIoa(2, 0)]);
  o.detach(a.sink, a.st.remaining()); // dropped before any acknowledgement
  applyDevice(o, dev({ actualOngoingFault: 0, date: T + 2000 }), T, CLOCK, false);
  const b = connect(o);
  b.sent.push(...b.st.handle({ format: 'U', fn: 'STARTDT_ACT' }, T).send);
  assert.equal(b.ioas(), [singleIoa(2, 0), singleIoa(2, 1), floatIoa(2, 0), singleIoa(2, 0), singleIoa(2, 1), floatIoa(2, 0)]);
});

test('redundancy: a second connection that starts data transfer displaces the first and gets what it had not delivered first', () => {
  const o = new Iec104Outstation(1);
  applyDevice(o, dev(), T, CLOCK, false);
  const a = connect(o);
  a.sent.push(...a.st.handle({ format: 'U', fn: 'STARTDT_ACT' }, T).send);
  applyDevice(o, dev({ actualOngoingFault: 4, date: T + 1000 }), T, CLOCK, false);
  assert.is(a.ioas().length, 3);
  const b = connect(o); // attach: a is displaced, its unacknowledged ASDUs go back to the backlog, then to b
  assert.is(o.active, b.sink);
  applyDevice(o, dev({ actualOngoingFault: 0, date: T + 2000 }), T, CLOCK, false);
  b.sent.push(...b.st.handle({ format: 'U', fn: 'STARTDT_ACT' }, T).send);
  assert.equal(b.ioas(), [singleIoa(2, 0), singleIoa(2, 1), floatIoa(2, 0), singleIoa(2, 0), singleIoa(2, 1), floatIoa(2, 0)]);
  assert.is(a.ioas().length, 3, 'the displaced connection got nothing more');
});

test('a stored check-in\'s events: the observer told once when they leave and once when the master acknowledges them', () => {
  const o = new Iec104Outstation(1);
  const told: string[] = [];
  o.observer = {
    sent: (origins, now) => told.push(...origins.map((x) => `sent ${x.recordId} ${x.testFault?.phase} ${now}`)),
    confirmed: (origins, now) => told.push(...origins.map((x) => `confirmed ${x.recordId} ${now}`)),
  };
  applyDevice(o, dev(), T, CLOCK, false);
  const origin = { storedAtMs: T, recordId: 7, testFault: { id: 3, phase: 'fault' as const } };
  applyDevice(o, dev({ actualOngoingFault: 4, date: T + 1000 }), T, CLOCK, false, origin); // two ASDUs, one origin
  const st = new Station(o.handlers, DEFAULT_TIMERS, T);
  o.attach({ enqueue: (a) => st.enqueue(a, T) });
  const out = st.handle({ format: 'U', fn: 'STARTDT_ACT' }, T);
  assert.is(out.sentEvents?.length, 2);
  o.sent(out.sentEvents!, T + 1);
  const acked = st.handle({ format: 'S', nr: 2 }, T + 2).acked!;
  o.acknowledged(acked, T + 2);
  assert.equal(told, [`sent 7 fault ${T + 1}`, `confirmed 7 ${T + 2}`]);
});

test('a day of events waiting for a master (200,000 restored) reaches the station whole, without a spread past V8\'s argument limit', () => {
  const o = new Iec104Outstation(1);
  applyDevice(o, dev(), T, CLOCK, false);
  const journal = { append: (p: readonly Uint8Array[]) => p.map(() => 0), saveImage: () => {}, acknowledged: () => {} };
  const event = Uint8Array.from([1, 1, 3, 0, 1, 0, 1, 0, 0, 1]); // M_SP_NA_1, spontaneous, CA 1, IOA 1, on
  const restored = Array.from({ length: 200_000 }, (_, i) => ({ seq: i + 1, payload: event }));
  o.persist(journal, { image: [], pending: restored });
  assert.is(o.pending, 200_000);
  const a = connect(o); // attach hands the whole backlog to the station (Station.enqueue)
  assert.is(a.st.queued, 200_000);
  a.sent.push(...a.st.handle({ format: 'U', fn: 'STARTDT_ACT' }, T).send);
  assert.is(a.sent.map(decodeApdu).filter((f) => f.format === 'I').length, DEFAULT_TIMERS.k, 'the k window still bounds what is sent unacknowledged');
});

test.run();
