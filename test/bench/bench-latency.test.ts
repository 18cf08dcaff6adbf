// The SCADA bench's latency arithmetic (support/bench-latency.ts): nearest-rank percentiles, the split of each
// fault at its stored check-in's commit, and the table with DNP3 and IEC 104 side by side.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { distribution, latencyTable, protocolLatency, splitAtCommit } from '../../support/bench-latency.js';

const ms = (x: number) => BigInt(Math.round(x * 1e6));

test('p50 and p95 are nearest-rank over the samples in any order, rounded to 0.1 ms', () => {
  const xs = Array.from({ length: 20 }, (_, i) => 20 - i + 0.04); // 20.04 down to 1.04
  assert.equal(distribution(xs), { p50: 10, p95: 19, min: 1, max: 20 });
  assert.equal(distribution([7.25]), { p50: 7.3, p95: 7.3, min: 7.3, max: 7.3 });
});

test('no samples give NaN, shown as a dash rather than a number', () => {
  const none = protocolLatency([]);
  assert.ok(Number.isNaN(none.totalMs.p50));
  assert.is(none.received, 0);
  const row = latencyTable(none, none)[2]!;
  assert.ok(!row.includes('NaN'), row);
  assert.match(row, /\| – \| – \| – \| – \|/);
});

test('the split is the first commit after the send and not after the receipt', () => {
  const sent = ms(1000);
  // A commit from before the send (the previous fault's) and one after the master's receipt are not this fault's.
  const f = splitAtCommit(sent, ms(1080), [ms(990), ms(1020), ms(1030), ms(1100)]);
  assert.equal(f, { totalMs: 80, toStoredMs: 20, storedToMasterMs: 60 });
  assert.equal(splitAtCommit(sent, ms(1080), [ms(990), ms(1100)]), { totalMs: 80 });
  // A commit at the very instant of the receipt still counts (the halves may be 0).
  assert.equal(splitAtCommit(sent, ms(1050), [ms(1050)]), { totalMs: 50, toStoredMs: 50, storedToMasterMs: 0 });
});

test('halves are taken over the split faults only; the total over every fault received', () => {
  const p = protocolLatency([{ totalMs: 100, toStoredMs: 30, storedToMasterMs: 70 }, { totalMs: 300 }, { totalMs: 50, toStoredMs: 20, storedToMasterMs: 30 }]);
  assert.is(p.received, 3);
  assert.is(p.split, 2);
  assert.equal(p.totalMs, { p50: 100, p95: 300, min: 50, max: 300 });
  assert.equal(p.toStoredMs, { p50: 20, p95: 30, min: 20, max: 30 });
  assert.equal(p.storedToMasterMs, { p50: 30, p95: 70, min: 30, max: 70 });
});

test('the table puts each protocol\'s p50, p95, min and max in its own columns, row by row', () => {
  const dnp3 = protocolLatency([{ totalMs: 80, toStoredMs: 20, storedToMasterMs: 60 }]);
  const iec104 = protocolLatency([{ totalMs: 45, toStoredMs: 20, storedToMasterMs: 25 }]);
  const table = latencyTable(dnp3, iec104);
  assert.is(table.length, 5);
  assert.match(table[0]!, /DNP3 p50 \| p95 \| min \| max \| IEC 104 p50 \| p95 \| min \| max/);
  assert.is(table[2], '| SendMessage to the event in the master | 80 | 80 | 80 | 80 | 45 | 45 | 45 | 45 |');
  assert.is(table[4], '| stored to the event in the master (feed, station, TLS) | 60 | 60 | 60 | 60 | 25 | 25 | 25 | 25 |');
  // Without a 104 run, DNP3's columns alone.
  assert.is(latencyTable(dnp3, undefined)[2], '| SendMessage to the event in the master | 80 | 80 | 80 | 80 |');
});

test.run();
