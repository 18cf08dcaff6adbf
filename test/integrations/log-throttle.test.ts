// One log line per key per window, with the number left out (integrations/log-throttle.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LogThrottle } from '../../integrations/log-throttle.js';

test('the first of a key in a window passes; the rest are counted into the next line', () => {
  let now = 0;
  const t = new LogThrottle(60_000, () => now);
  assert.is(t.pass('wrongIssuer|192.0.2.1'), 0);
  for (let i = 0; i < 99; i++) assert.is(t.pass('wrongIssuer|192.0.2.1'), undefined);
  assert.is(t.pass('handshake|192.0.2.1'), 0, 'another reason is its own key');
  assert.is(t.pass('wrongIssuer|192.0.2.2'), 0, 'another address too');
  now = 60_000;
  assert.is(t.pass('wrongIssuer|192.0.2.1'), 99, 'the next line says how many were left out');
  assert.is(t.pass('wrongIssuer|192.0.2.1'), undefined);
});

test('the keys kept are bounded: a flood of addresses does not grow it for ever', () => {
  let now = 0;
  const t = new LogThrottle(1000, () => now);
  for (let i = 0; i < 30_000; i++) t.pass(`busy|${i}`);
  now = 1;
  // The oldest keys went: their next refusal is logged again.
  assert.is(t.pass('busy|0'), 0);
  assert.is(t.pass('busy|29999'), undefined, 'a recent key is still held');
});

test.run();
