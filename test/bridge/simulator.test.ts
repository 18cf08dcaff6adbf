// The simulator: deterministic fleets, messages of the spec's shape that the pipeline accepts, and a
// rate-limited run into the spool inbox that the spool source drains.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Temporal } from 'temporal-polyfill';
import { parseQueueMessage } from '../../domain/validate-message.js';
import { createFleet, generateImei, modelOf, type SimulatedMessage } from '../../simulator/fleet.js';
import { formatProgress, simulate, type SimulationProgress } from '../../simulator/run-simulation.js';
import type { OutgoingMessage, Sink } from '../../simulator/sink.js';
import { spoolSource } from '../../stages/bridge/spool-source.js';
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';
import { waitFor } from '../../support/wait-for.js';
import { cleanupList } from './cleanup.js';
import { collect } from './collector.js';

const cleanup = cleanupList();
test.after.each(() => cleanup.run());

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'faultline-sim-'));
  cleanup.add(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const take = (n: number, options: Parameters<typeof createFleet>[0]) => {
  const fleet = createFleet(options);
  return Array.from({ length: n }, () => fleet.next());
};

test('the same seed gives the same messages; another seed does not', () => {
  const a = take(300, { devices: 20, seed: 42 });
  const b = take(300, { devices: 20, seed: 42 });
  const c = take(300, { devices: 20, seed: 43 });
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  assert.is.not(JSON.stringify(a), JSON.stringify(c));
  assert.equal(a.map((m) => m.imei), c.map((m) => m.imei), 'IMEIs depend on the prefix and index only');
});

test('a device reports the same model in every run (seed and start time do not change it), and a fleet mixes models', () => {
  const first = take(40, { devices: 20, seed: 1, startTime: Date.UTC(2026, 10, 20) });
  const restarted = take(40, { devices: 20, seed: 99_999, startTime: Date.UTC(2026, 10, 23, 7) });
  const models = (run: typeof first) => new Map(run.map((m) => [m.imei, m.message.device_data.model]));
  assert.equal([...models(restarted)], [...models(first)]);
  for (const m of [...first, ...restarted]) assert.is(m.message.device_data.model, modelOf(m.imei));
  assert.ok(new Set(models(first).values()).size > 1, 'not one model for everybody');
});

test('IMEIs: 15 digits with the prefix and a valid Luhn check digit; or the ones given', () => {
  assert.is(generateImei('4901542032375', 1), '490154203237518'); // a published example IMEI
  const fleet = createFleet({ devices: 50, imeiPrefix: '86123' });
  assert.is(new Set(fleet.imeis).size, 50);
  for (const imei of fleet.imeis) {
    assert.match(imei, /^86123[0-9]{10}$/);
    const sum = [...imei].reverse().reduce((s, ch, i) => { let d = Number(ch); if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; } return s + d; }, 0);
    assert.is(sum % 10, 0, `${imei} passes the Luhn check`);
  }
  const given = createFleet({ imeis: ['861000000000000', '861000000000100'], devices: 99 });
  assert.equal(given.imeis, ['861000000000000', '861000000000100']);
  assert.equal(take(4, { imeis: ['a1', 'b2'] }).map((m) => m.message.device_data.IMEINumber), ['a1', 'b2', 'a1', 'b2']);
});

test('messages have the spec shape: 24 hourly averages, growing EventIDs and dates per device', () => {
  const messages = take(2000, { devices: 25, seed: 7 });
  const lastEventId = new Map<string, number>();
  const lastDate = new Map<string, string>();
  const types = new Set<string>();
  for (const { imei, message } of messages) {
    assert.is(message.device_data.IMEINumber, imei);
    assert.is(message.currents.HourlyAverages.length, 24);
    assert.ok(message.currents.HourlyAverages.every((v) => Number.isFinite(v) && v >= 0));
    assert.is(message.dm1_device, false);
    const date = String(message.device_data.date);
    assert.ok(date > (lastDate.get(imei) ?? ''), `dates grow per device (${imei} ${date})`);
    lastDate.set(imei, date);
    for (const e of message.events) {
      assert.ok(e.EventID > (lastEventId.get(imei) ?? 1), `EventIDs grow per device and never look like a counter reset (${imei} ${e.EventID})`);
      lastEventId.set(imei, e.EventID);
      assert.ok(e.EventTimestamp <= date, 'events happen before their check-in');
      types.add(e.EventType);
    }
  }
  assert.equal([...types].sort(), ['Current Reset', 'Fault <50', 'Overcurrent', 'PFault', 'TFault'], 'every event kind occurs');
  const withEvents = messages.filter((m) => m.message.events.length > 0).length;
  assert.ok(withEvents > 50 && withEvents < 400, `events are occasional (${withEvents} of 2000 check-ins)`);
});

test('Fault <50 is followed by a TFault within 6 minutes; PFault check-ins report a permanent fault', () => {
  let pairs = 0;
  for (const { message } of take(3000, { devices: 10, seed: 3 })) {
    message.events.forEach((e, i) => {
      if (e.EventType !== 'Fault <50') return;
      const next = message.events[i + 1];
      assert.is(next?.EventType, 'TFault');
      assert.ok(Date.parse(next!.EventTimestamp) - Date.parse(e.EventTimestamp) <= 6 * 60_000);
      pairs++;
    });
    const last = message.events[message.events.length - 1];
    if (last?.EventType === 'PFault') assert.is(message.device_data.Ongoing_fault, 4);
  }
  assert.ok(pairs > 0);
});

test('eventsPerCheckIn gives exactly that many events in every check-in', () => {
  for (const { message } of take(500, { devices: 5, eventsPerCheckIn: 3, intervalMs: 1000 })) {
    assert.is(message.events.length, 3);
    assert.ok(message.events[0]!.EventTimestamp < message.events[2]!.EventTimestamp);
  }
});

test('every simulated message passes the pipeline validation (domain/validate-message.ts)', () => {
  const startTime = Date.UTC(2026, 10, 20);
  const now = Temporal.Instant.fromEpochMilliseconds(startTime + 30 * 24 * 3_600_000);
  const check = (message: SimulatedMessage) => {
    const r = parseQueueMessage(JSON.stringify(message), { now });
    assert.ok(r.ok, r.ok ? '' : r.reason);
  };
  for (const { message } of take(1000, { devices: 10, seed: 11, startTime })) check(message);
  for (const { message } of take(200, { devices: 3, seed: 12, startTime, eventsPerCheckIn: 4, intervalMs: 1000 })) check(message);
});

test('simulate to the spool inbox: the count, .json files only, names in write order, progress', async () => {
  const dir = await tempDir();
  const progress: SimulationProgress[] = [];
  const result = await simulate({ devices: 7, rate: 10_000, count: 45, to: 'spool', inboxDir: dir, seed: 5 }, (p) => progress.push(p));
  assert.is(result.sent, 45);
  const files = (await readdir(dir)).sort();
  assert.is(files.length, 45);
  assert.ok(files.every((f) => /^sim-\d{13}-\d{10}\.json$/.test(f)));
  const first = JSON.parse(await readFile(join(dir, files[0]!), 'utf8')) as SimulatedMessage;
  assert.is(first.currents.HourlyAverages.length, 24);
  assert.ok(progress.at(-1)?.done);
  assert.match(formatProgress(progress.at(-1)!), /^done: sent 45\/45 {2}rate [0-9.]+ msg\/s {2}elapsed [0-9.]+ s$/);
});

test('simulate keeps to the rate and reports progress every second', async () => {
  const written: OutgoingMessage[] = [];
  const sink: Sink = { write: async (m) => { written.push(...m); }, close: async () => {} };
  const progress: SimulationProgress[] = [];
  const started = Date.now();
  const result = await simulate({ devices: 3, rate: 40, durationSec: 1.6, to: 'spool', sink }, (p) => progress.push(p));
  const elapsed = Date.now() - started;
  // Outcomes, not a stopwatch: it ran until the deadline and never above the rate (a starved machine may
  // send a little less in time, never more).
  assert.ok(elapsed >= 1500, `ran for the duration (${elapsed} ms)`);
  assert.ok(result.sent >= 40 && result.sent <= 64, `at most 40/s for 1.6 s (${result.sent})`);
  assert.is(written.length, result.sent);
  const ticks = progress.filter((p) => !p.done);
  assert.is(ticks.length, 1, 'one progress line a second before the final one');
  assert.ok(ticks[0]!.rate > 30 && ticks[0]!.rate < 50, `rate over the last second (${ticks[0]!.rate})`);
  // Dates follow the clock: 3 devices at 40/s check in every second, never twice at the same second.
  const dates = written.map((m) => JSON.parse(m.body) as SimulatedMessage).map((m) => `${m.device_data.IMEINumber} ${m.device_data.date}`);
  assert.is(new Set(dates).size, dates.length);
});

test('simulate stops when its signal aborts', async () => {
  const sink: Sink = { write: async () => {}, close: async () => {} };
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 300);
  const result = await simulate({ devices: 2, rate: 100, to: 'spool', sink, signal: controller.signal }, () => {});
  assert.ok(result.sent >= 20 && result.sent <= 40, `stopped after ~0.3 s (${result.sent})`);
});

test('simulate -> spool inbox -> spool source -> transport: every message arrives once, none dead-lettered', async () => {
  const dir = await tempDir();
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  cleanup.add(() => transport.close());
  const reader = await collect(transport);
  const source = spoolSource({ transport, dir, log: () => {} });
  cleanup.add(() => source.stop());
  await source.start();
  await simulate({ devices: 30, rate: 2000, count: 300, to: 'spool', inboxDir: dir, eventsPerCheckIn: 2 }, () => {});
  await waitFor('300 records', () => reader.raw.length >= 300, { timeoutMs: 10_000 });
  await waitFor('inbox empty', async () => (await readdir(dir)).length === 0, { timeoutMs: 5_000 });
  assert.is(reader.dlq.length, 0);
  assert.is(new Set(reader.raw.map((r) => r.value.messageId)).size, 300);
  assert.is(new Set(reader.raw.map((r) => r.key)).size, 30);
});

test.run();
