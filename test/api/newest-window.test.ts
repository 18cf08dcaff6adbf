// Newest-first windows (api/device-records/newest-window.ts, docs/decisions.md#newest-first-windows): when a
// window's page is the page over the whole history, which spans are tried, what is remembered; and the cursor's
// instant a keyset page's window starts from (keyset.ts cursorInstantMs).
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cursorInstantMs } from '../../api/device-records/keyset.js';
import { dayParameter, type SortKey } from '../../api/device-records/list-params.js';
import { newestWindow, spanMemory, spansFrom, WINDOW_SPANS_MS, WINDOW_START, windowHoldsPage, windowStart } from '../../api/device-records/newest-window.js';

const test = suite('newest-first windows');
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-29T12:00:00Z');
const rows = (n: number, atMs: number) => Array.from({ length: n }, () => [new Date(atMs)]);

test('a full page inside the window is the page (the list sorts by the partition key); a short one is not, unless the window is the whole history', () => {
  assert.ok(windowHoldsPage(rows(50, NOW - 3_600_000), 50, DAY));
  assert.not.ok(windowHoldsPage(rows(49, NOW), 50, DAY));
  assert.not.ok(windowHoldsPage([], 50, DAY));
  assert.ok(windowHoldsPage(rows(49, NOW), 50, Infinity));
  assert.ok(windowHoldsPage([], 50, Infinity));
});

test('spans widen to the whole history, starting from the one remembered', () => {
  assert.equal(spansFrom(WINDOW_SPANS_MS[0]!), [...WINDOW_SPANS_MS]);
  assert.equal(spansFrom(256 * DAY), [256 * DAY, Infinity]);
  assert.equal(spansFrom(Infinity), [Infinity]);
  assert.is(WINDOW_SPANS_MS.at(-1), Infinity);
  assert.is(windowStart(NOW, DAY), '2026-11-28T12:00:00.000Z');
  assert.is(windowStart(NOW, Infinity), '-infinity');
  // A window that would start before year 1 (a forged cursor) is the whole history: PostgreSQL reads no year 0.
  assert.is(windowStart(Date.parse('0001-01-01T00:00:00Z'), DAY), '-infinity');
  assert.is(windowStart(Date.parse('0001-01-02T00:00:00Z'), DAY), '0001-01-01T00:00:00.000Z');
});

test('the memory keeps the last span per statement, forgets the oldest past its bound', () => {
  const m = spanMemory(2);
  assert.is(m.firstSpan('a'), DAY);
  m.remember('a', 256 * DAY);
  m.remember('b', Infinity);
  assert.is(m.firstSpan('a'), 256 * DAY);
  m.remember('a', 16 * DAY); // used again: now the newest
  m.remember('c', DAY);
  assert.is(m.firstSpan('b'), DAY, 'b was the oldest: forgotten');
  assert.is(m.firstSpan('a'), 16 * DAY);
  assert.is(m.firstSpan('c'), DAY);
});

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = () => { gc(); gc(); return getHeapStatistics().used_heap_size; };

test('the memory holds little per statement, however long its text: 10,000 texts of 20 kB hold under 10 MB, not 200', () => {
  // A statement's text and values are the key; a caller sets their length (filter values, up to the URL's
  // 16 kB), and every keyset page and OFFSET page is a statement of its own.
  const text = (i: number) => `${i} `.padEnd(20_000, 'x');
  const before = heapAfterGc();
  const m = spanMemory(10_000);
  for (let i = 0; i < 10_000; i++) m.remember(text(i), 256 * DAY);
  const held = heapAfterGc() - before;
  assert.ok(held < 10_000_000, `${held} bytes held`);
  assert.is(m.firstSpan(text(9_999)), 256 * DAY, 'still remembered');
  assert.is(m.firstSpan(text(10_000)), DAY);
});

test('the bound stands as WINDOW_START in the condition until each attempt sets it; no day range or another order: no window', () => {
  const sort: SortKey[] = [{ field: 'date', order: 'desc' }];
  const q = { from: null, to: null, sort };
  const w = newestWindow(q, sort, 'r."date"', NOW, [3, 4]);
  assert.equal(w.condition, [`r."date" >= ${WINDOW_START}`]);
  assert.equal(w.window, { newestMs: NOW, cursorSlots: [3, 4] });
  assert.equal(newestWindow({ ...q, from: dayParameter('from', '20261101') }, sort, 'r."date"', NOW), { condition: [] });
  assert.equal(newestWindow({ ...q, sort: [{ field: 'date', order: 'asc' }] }, sort, 'r."date"', NOW), { condition: [] });
});

test('a cursor\'s instant: offsets honoured, never after the instant (sub-millisecond digits dropped)', () => {
  assert.is(cursorInstantMs('2026-11-28 17:38:00.123456+00'), Date.parse('2026-11-28T17:38:00.123Z'));
  assert.is(cursorInstantMs('2026-11-28 17:38:00+00'), Date.parse('2026-11-28T17:38:00Z'));
  assert.is(cursorInstantMs('2026-11-28 23:08:00.5+05:30'), Date.parse('2026-11-28T17:38:00.5Z'));
  assert.is(cursorInstantMs('2026-11-28 14:38:00-03'), Date.parse('2026-11-28T17:38:00Z'));
  assert.is(cursorInstantMs('1900-01-01 00:53:28+00:53:28'), Date.parse('1900-01-01T00:00:00Z'));
  assert.is(cursorInstantMs('0050-06-01 00:00:00+00'), Date.parse('0050-06-01T00:00:00Z'), 'a year below 100 stays itself');
  assert.throws(() => cursorInstantMs('2026-11-28'));
  assert.throws(() => cursorInstantMs("2026-11-28 17:38:00+00'; --"));
});

test.run();
