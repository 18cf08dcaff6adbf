// One log line per key per window, with the number left out, under a line budget per reason across all keys
// (integrations/log-throttle.ts, docs/decisions.md#refusal-log-budget).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LogThrottle } from '../../integrations/log-throttle.js';

test('the first of a key in a window passes; the rest are counted into the next line', () => {
  let now = 0;
  const t = new LogThrottle(60_000, () => now);
  assert.is(t.pass('wrongIssuer|192.0.2.1', 'wrongIssuer')?.alsoRefused, 0);
  for (let i = 0; i < 99; i++) assert.is(t.pass('wrongIssuer|192.0.2.1', 'wrongIssuer'), undefined);
  assert.is(t.pass('handshake|192.0.2.1', 'handshake')?.alsoRefused, 0, 'another reason is its own key');
  assert.is(t.pass('wrongIssuer|192.0.2.2', 'wrongIssuer')?.alsoRefused, 0, 'another address too');
  now = 60_000;
  assert.is(t.pass('wrongIssuer|192.0.2.1', 'wrongIssuer')?.alsoRefused, 99, 'the next line says how many were left out');
  assert.is(t.pass('wrongIssuer|192.0.2.1', 'wrongIssuer'), undefined);
});

test('10,000 distinct addresses refused for one reason in a minute log 20 lines; the next line counts the rest', () => {
  let now = 0;
  const t = new LogThrottle(60_000, () => now);
  const lines = [];
  for (let i = 0; i < 10_000; i++) {
    const line = t.pass(`busy|2001:db8:0:${i.toString(16)}::/64`, 'busy');
    if (line) lines.push(line);
  }
  assert.is(lines.length, 20, 'the budget holds across addresses');
  assert.is(lines.filter((l) => l.lastInWindow).length, 1, 'one line says the rest are only counted');
  assert.ok(lines[19]!.lastInWindow);
  assert.ok(t.pass('handshake|2001:db8::/64', 'handshake'), 'another reason has its own budget');
  now = 60_000;
  assert.is(t.pass('busy|2001:db8:1::/64', 'busy')?.overBudget, 10_000 - 20, 'the next window\'s first line says how many were left out');
  assert.is(t.pass('busy|2001:db8:2::/64', 'busy')?.overBudget, 0, 'and only once');
});

test('the keys kept are bounded: a flood of addresses does not grow it for ever', () => {
  let now = 0;
  const t = new LogThrottle(1000, () => now, Infinity);
  for (let i = 0; i < 30_000; i++) t.pass(`busy|${i}`);
  now = 1;
  // The oldest keys went: their next refusal is logged again.
  assert.is(t.pass('busy|0')?.alsoRefused, 0);
  assert.is(t.pass('busy|29999'), undefined, 'a recent key is still held');
});

/** A Map that counts the entries its iteration hands out (prune's cost, with no clock in the assertion). */
class CountingMap<K, V> extends Map<K, V> {
  visited = 0;
  override *[Symbol.iterator](): MapIterator<[K, V]> {
    for (const e of super.entries()) { this.visited++; yield e; }
  }
}

test('with 10,000 fresh keys held, a new key prunes by visiting one entry, not the whole map', () => {
  let now = 0;
  const t = new LogThrottle(60_000, () => now, Infinity);
  const keys = new CountingMap<string, unknown>();
  Reflect.set(t, 'keys', keys);
  for (let i = 0; i < 10_000; i++) { now = i; t.pass(`busy|${i}`); }
  assert.is(keys.visited, 0);
  for (let i = 0; i < 100; i++) { now = 10_000 + i; t.pass(`busy|new-${i}`); }
  assert.is(keys.size, 10_000, 'still bounded');
  assert.ok(keys.visited <= 100, `each prune stops at the first fresh entry (visited ${keys.visited})`);
  now = 60_000 + 149; // keys 0..99 went for the new ones; 100..149 are stale now
  keys.visited = 0;
  t.pass('busy|later');
  assert.is(keys.size, 10_000 + 1 - 50, 'the stale ones went');
  assert.is(keys.visited, 51, 'the stale ones and the first fresh one');
});

test.run();
