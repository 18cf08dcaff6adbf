import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeApdu, type Apdu } from '../../iec104/apci/apci.js';
import { Cot, decodeAsdu, encodeAsdu, Quality, TypeId, type Asdu } from '../../iec104/asdu/index.js';
import { iec104Point, floatIoa, singleIoa } from '../../iec104/data/point-map.js';
import { imageHandlers, packEvents } from '../../iec104/data/asdus.js';
import { ProcessImage } from '../../iec104/data/image.js';
import type { StationHandlers } from '../../iec104/station/application.js';
import { DEFAULT_TIMERS, MAX_QUEUED_REPLIES, Station, type StationOutput } from '../../iec104/station/station.js';
import { readdirSync, readFileSync } from 'node:fs';
import { deviceSamples, type DeviceSnapshot } from '../../points/device-points.js';

const CLOCK = { floorS: 300, ceilingS: 26 * 3600 };
const T = Date.parse('2026-11-25T14:05:00Z');
const dev = (slot: number, over: Partial<DeviceSnapshot> = {}): DeviceSnapshot => ({
  imei: `86${slot}`, slot, name: null, date: T, actualOngoingFault: 0, batteryOrLine: 1, averageCurrent1m: 1, prefaultCurrent: 2,
  faultCurrent: null, faultTime: null, peakCurrent24h: 4, averageCurrent1h: 5, batteryMcu: 6, temperature: 7, ...over,
});

/** The handlers of an image holding these devices' points (what an outstation gives its connections' stations). */
function imageOf(devices: DeviceSnapshot[], now = T): StationHandlers {
  const img = new ProcessImage();
  img.ensure(1);
  for (const d of devices) for (const s of deviceSamples(d, now, CLOCK)) { const p = iec104Point(s, 1); img.update(p.ca, p.point); }
  return imageHandlers(img);
}

const frames = (o: StationOutput): Apdu[] => o.send.map(decodeApdu);
const asdus = (o: StationOutput): Asdu[] => frames(o).flatMap((f) => (f.format === 'I' ? [decodeAsdu(f.asdu)] : []));
const cmd = (a: Partial<Asdu> & { typeId: number }): Uint8Array =>
  encodeAsdu({ cause: Cot.ACTIVATION, negative: false, test: false, originator: 0, commonAddress: 1, objects: [{ ioa: 0, qualifier: 20 }], ...a });
let ns = 0;
const i = (asdu: Uint8Array, nr = 0): Apdu => ({ format: 'I', ns: ns++, nr, asdu });
const startdt: Apdu = { format: 'U', fn: 'STARTDT_ACT' };

test('the 104 layout: single points 1+8s+k, floats 100001+8s+k, CA per bank; IV unreported, NT offline', () => {
  const [s0] = deviceSamples(dev(8001), T, CLOCK);
  assert.equal(iec104Point(s0!, 1), { ca: 2, point: { kind: 'binary', ioa: singleIoa(1, 0), value: 0, quality: 0, time: T } });
  assert.is(singleIoa(1, 0), 9);
  assert.is(floatIoa(0, 3), 100_004);
  const a = deviceSamples(dev(0), T, CLOCK).find((s) => s.kind === 'analog' && s.k === 3)!;
  assert.is(iec104Point(a, 1).point.quality, Quality.IV); // no fault current reported
  const late = deviceSamples(dev(0), T + 27 * 3_600_000, CLOCK)[0]!;
  assert.is(iec104Point(late, 1).point.quality, Quality.NT);
});

test('no I frame before STARTDT: GI refused by closing; after STARTDT con, GI answers con, every point with COT 20, term', () => {
  ns = 0;
  const st = new Station(imageOf([dev(0), dev(1)]), DEFAULT_TIMERS, T);
  assert.is(new Station(imageOf([]), DEFAULT_TIMERS, T).handle({ format: 'I', ns: 0, nr: 0, asdu: cmd({ typeId: TypeId.C_IC_NA_1 }) }, T).close, 'missingStartdt');
  assert.equal(frames(st.handle(startdt, T)), [{ format: 'U', fn: 'STARTDT_CON' }]);
  const out = asdus(st.handle(i(cmd({ typeId: TypeId.C_IC_NA_1 })), T));
  assert.equal(out.map((a) => [a.typeId, a.cause]), [[100, 7], [1, 20], [13, 20], [100, 10]]);
  assert.is(out[1]!.objects.length, 16);
  assert.is(out[2]!.objects.length, 16);
  // group 2 (measured values) only
  const g = asdus(st.handle(i(cmd({ typeId: TypeId.C_IC_NA_1, objects: [{ ioa: 0, qualifier: 22 }] })), T));
  assert.equal(g.map((a) => [a.typeId, a.cause]), [[100, 7], [13, 22], [100, 10]]);
});

test('negative confirmations: 44 unknown type (a command to an output), 45 cause, 46 common address, 47 IOA', () => {
  ns = 0;
  const st = new Station(imageOf([dev(0)]), DEFAULT_TIMERS, T);
  st.handle(startdt, T);
  const sc = new Uint8Array([45, 1, 6, 0, 1, 0, 5, 0, 0, 1]); // C_SC_NA_1 single command ON
  const one = (b: Uint8Array) => { const o = st.handle(i(b), T); const f = frames(o).find((x) => x.format === 'I')!; return { o, b: (f as { asdu: Uint8Array }).asdu }; };
  let r = one(sc);
  assert.equal([...r.b], [45, 1, 6 | 0x40 | 0 , 0, 1, 0, 5, 0, 0, 1].map((x, k) => (k === 2 ? 0x40 | 44 : x)));
  assert.equal(r.o.refusals, ['unknownType']);
  r = one(cmd({ typeId: TypeId.C_IC_NA_1, cause: Cot.SPONTANEOUS }));
  assert.equal([decodeAsdu(r.b).cause, decodeAsdu(r.b).negative], [45, true]);
  r = one(cmd({ typeId: TypeId.C_IC_NA_1, commonAddress: 7 }));
  assert.equal([decodeAsdu(r.b).cause, decodeAsdu(r.b).negative], [46, true]);
  r = one(cmd({ typeId: TypeId.C_RD_NA_1, cause: Cot.REQUEST, objects: [{ ioa: 99_999 }] }));
  assert.equal([decodeAsdu(r.b).cause, decodeAsdu(r.b).negative], [47, true]);
  r = one(cmd({ typeId: TypeId.C_RD_NA_1, cause: Cot.REQUEST, objects: [{ ioa: floatIoa(0, 6) }] }));
  assert.equal(decodeAsdu(r.b), { typeId: TypeId.M_ME_NC_1, cause: 5, negative: false, test: false, originator: 0, commonAddress: 1, objects: [{ ioa: 100_007, value: 6, quality: 0 }] });
});

test('clock sync and test command are confirmed (mirrored), the sync time handed up', () => {
  ns = 0;
  const st = new Station(imageOf([]), DEFAULT_TIMERS, T);
  st.handle(startdt, T);
  const cs = st.handle(i(cmd({ typeId: TypeId.C_CS_NA_1, objects: [{ ioa: 0, time: T + 5 }] })), T);
  assert.is(cs.clockSync, T + 5);
  assert.equal(asdus(cs).map((a) => [a.typeId, a.cause, a.negative, a.objects[0]!.time]), [[103, 7, false, T + 5]]);
  const ts = asdus(st.handle(i(cmd({ typeId: TypeId.C_TS_TA_1, objects: [{ ioa: 0, tsc: 77, time: T }] })), T));
  assert.equal(ts.map((a) => [a.typeId, a.cause, a.objects[0]!.tsc]), [[107, 7, 77]]);
});

test('events queue while stopped and leave in order after STARTDT; k window; t1 closes; S acks free the window', () => {
  const st = new Station(imageOf([]), { ...DEFAULT_TIMERS, k: 2 }, T);
  const events = [1, 2, 3].map((n) => packEvents([{ kind: 'binary', ioa: n, value: 1, quality: 0, time: T - n }], 1)[0]!);
  assert.equal(st.enqueue(events, T).send, []);
  const first = frames(st.handle(startdt, T));
  assert.equal(first.map((f) => (f.format === 'I' ? decodeAsdu(f.asdu).objects[0]!.ioa : f.format)), ['U', 1, 2]);
  assert.equal(asdus(st.handle(startdt, T)), []); // window full
  assert.equal(frames(st.handle({ format: 'S', nr: 1 }, T + 1)).map((f) => (f.format === 'I' ? [f.ns, decodeAsdu(f.asdu).objects[0]!.time] : f.format)), [[2, T - 3]]);
  assert.is(st.handle({ format: 'S', nr: 5 }, T + 2).close, 'sequenceError'); // acknowledges a frame never sent
  assert.is(st.tick(T + 1 + DEFAULT_TIMERS.t1Ms).close, 't1Expired');
});

test('w received I frames are acknowledged with S at once; t2 acknowledges fewer; t3 tests an idle link; STOPDT waits for acks', () => {
  ns = 0;
  const st = new Station(imageOf([]), { ...DEFAULT_TIMERS, w: 2, k: 1 }, T);
  st.handle(startdt, T);
  const rd = cmd({ typeId: TypeId.C_TS_TA_1, objects: [{ ioa: 0, tsc: 1, time: T }] });
  assert.equal(frames(st.handle(i(rd, 0), T)).map((f) => f.format), ['I']); // the answer acknowledges by its N(R)
  assert.equal(frames(st.handle(i(rd, 0), T)), []); // answer waits for the window (k = 1): one unacknowledged
  assert.equal(frames(st.handle(i(rd, 0), T)), [{ format: 'S', nr: 3 }]); // w = 2 reached
  assert.equal(frames(st.handle({ format: 'S', nr: 1 }, T)).map((f) => f.format), ['I']);
  assert.is(st.handle({ format: 'U', fn: 'STOPDT_ACT' }, T).send.length, 0); // a reply unacknowledged
  assert.equal(frames(st.handle({ format: 'S', nr: 2 }, T)).map((f) => f.format === 'U' ? f.fn : f.format), ['STOPDT_CON']);
  assert.equal(frames(st.tick(T + DEFAULT_TIMERS.t3Ms)).map((f) => (f.format === 'U' ? f.fn : f.format)), ['TESTFR_ACT']);
  assert.equal(frames(st.handle({ format: 'U', fn: 'TESTFR_ACT' }, T)), [{ format: 'U', fn: 'TESTFR_CON' }]);
  // k = 1: the second command's answer waits for the window, so nothing acknowledges it but t2's S frame
  const st2 = new Station(imageOf([]), { ...DEFAULT_TIMERS, k: 1 }, T);
  st2.handle(startdt, T);
  st2.handle({ format: 'I', ns: 0, nr: 0, asdu: rd }, T);
  st2.handle({ format: 'I', ns: 1, nr: 0, asdu: rd }, T);
  assert.equal(frames(st2.tick(T + DEFAULT_TIMERS.t2Ms - 1)), []);
  assert.equal(frames(st2.tick(T + DEFAULT_TIMERS.t2Ms)), [{ format: 'S', nr: 2 }]);
  assert.is(new Station(imageOf([]), DEFAULT_TIMERS, T).handle({ format: 'I', ns: 3, nr: 0, asdu: rd }, T).close, 'missingStartdt');
  const st3 = new Station(imageOf([]), DEFAULT_TIMERS, T);
  st3.handle(startdt, T);
  assert.is(st3.handle({ format: 'I', ns: 3, nr: 0, asdu: rd }, T).close, 'sequenceError');
});

// Bounded sessions (docs/decisions.md#iec-104-bounded-sessions).
const many = Array.from({ length: 40 }, (_, n) => dev(n));
const gi = (qoi = 20) => cmd({ typeId: TypeId.C_IC_NA_1, objects: [{ ioa: 0, qualifier: qoi }] });
const giCauses = (o: StationOutput) => asdus(o).filter((a) => a.typeId === TypeId.C_IC_NA_1).map((a) => [a.cause, a.negative]);

test('one interrogation at a time: another while the answer is under way gets a negative ACT_CON; after ACT_TERM one is accepted', () => {
  ns = 0;
  const st = new Station(imageOf(many), { ...DEFAULT_TIMERS, k: 4 }, T);
  st.handle(startdt, T);
  const first = st.handle(i(gi()), T);
  assert.equal(giCauses(first), [[7, false]]); // con and 3 data frames: the window is full
  const second = st.handle(i(gi(21)), T);
  assert.equal(second.refusals, ['interrogationRunning']);
  const out: StationOutput[] = [];
  let sent = 4;
  // The master acknowledges each window: the refusal goes first (a reply), then the rest of the first answer.
  for (let n = 0; n < 100 && !out.some((o) => giCauses(o).some(([c]) => c === 10)); n++) {
    const o = st.handle({ format: 'S', nr: sent }, T);
    sent += frames(o).filter((f) => f.format === 'I').length;
    out.push(o);
  }
  assert.equal(out.flatMap(giCauses), [[7, true], [10, false]]);
  assert.equal(asdus(out[0]!)[0]!.objects[0]!.qualifier, 21, 'the refused command mirrored');
  st.handle({ format: 'S', nr: sent }, T);
  const third = st.handle(i(gi(22), sent), T);
  assert.equal(third.refusals, []);
  assert.equal(giCauses(third), [[7, false]]);
});

test('replies capped per connection: a master that sends commands and acknowledges nothing is closed (replyQueueFull)', () => {
  ns = 0;
  const st = new Station(imageOf([]), DEFAULT_TIMERS, T);
  st.handle(startdt, T);
  const tc = cmd({ typeId: TypeId.C_TS_TA_1, objects: [{ ioa: 0, tsc: 1, time: T }] });
  let closed: string | undefined;
  let n = 0;
  while (!closed && n < 5 * MAX_QUEUED_REPLIES) { closed = st.handle({ format: 'I', ns: n % 32768, nr: 0, asdu: tc }, T).close; n++; }
  assert.is(closed, 'replyQueueFull');
  assert.is(n, MAX_QUEUED_REPLIES + DEFAULT_TIMERS.k + 1, 'k sent, MAX_QUEUED_REPLIES waiting, the next one too many');
});

test('only events outlive a connection: a dropped connection\'s replies and interrogation are not handed on', () => {
  ns = 0;
  const st = new Station(imageOf(many), DEFAULT_TIMERS, T);
  const event = packEvents([{ kind: 'binary', ioa: 1, value: 1, quality: 0, time: T }], 1)[0]!;
  st.enqueue([event], T);
  st.handle(startdt, T); // the event goes out, unacknowledged
  st.handle(i(gi()), T); // the answer fills the window, the rest waits
  st.handle(i(cmd({ typeId: TypeId.C_TS_TA_1, objects: [{ ioa: 0, tsc: 1, time: T }] })), T);
  const later = packEvents([{ kind: 'binary', ioa: 9, value: 1, quality: 0, time: T }], 1)[0]!;
  st.enqueue([later], T);
  assert.equal(st.drain(), [event, later]);
  assert.is(st.queued, 0);
});

test('a station that pulls the interrogation answer as the window opens holds nothing while held (write queue full)', () => {
  ns = 0;
  const st = new Station(imageOf(many), DEFAULT_TIMERS, T);
  st.handle(startdt, T);
  st.hold(true, T);
  assert.equal(frames(st.handle(i(gi()), T)).filter((f) => f.format === 'I'), []);
  assert.is(frames(st.hold(false, T)).filter((f) => f.format === 'I').length, DEFAULT_TIMERS.k);
});

test('the station layer knows no point map: station/ imports nothing from data/ (it takes handlers, as lib60870 does)', () => {
  const dir = new URL('../../iec104/station/', import.meta.url);
  for (const f of readdirSync(dir)) assert.not.match(readFileSync(new URL(f, dir), 'utf8'), /from '\.\.\/data\//, f);
});

test.run();
