// The outstation's unsolicited state (dnp3/outstation/unsolicited.ts), pure: enabled classes, the null
// response after a restart, one fragment awaiting CONFIRM with its retries, and its own sequence numbers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UnsolicitedState } from '../../../dnp3/outstation/unsolicited.js';

const state = (maxRetries = 2) => new UnsolicitedState({ confirmTimeoutMs: 1000, maxRetries });
/** The fragment's bytes are just its sequence number here: what was built with which SEQ. */
const build = (seq: number) => Uint8Array.of(seq);

test('classes: ENABLE adds to and DISABLE takes from what is enabled (bit c: class c)', () => {
  const u = state();
  assert.equal([...u.enabledClasses()], []);
  u.setClasses(0b0110, true);
  assert.equal([...u.enabledClasses()], [1, 2]);
  u.setClasses(0b1000, true);
  u.setClasses(0b0010, false);
  assert.equal([...u.enabledClasses()], [2, 3]);
});

test('the null response after a restart is needed until it is confirmed; an event fragment does not count', () => {
  const u = state();
  assert.ok(u.needsNullResponse());
  u.send(build, [1], false, 0);
  u.confirm(0);
  assert.ok(u.needsNullResponse());
  u.send(build, [], true, 0);
  assert.ok(u.needsNullResponse()); // sent, not confirmed yet
  u.confirm(1);
  assert.not.ok(u.needsNullResponse());
});

test('a CONFIRM must carry the awaited sequence number; the next fragment takes the next one, wrapping at 16', () => {
  const u = state();
  assert.is(u.confirm(0), undefined); // nothing awaited
  assert.equal([...u.send(build, [7, 8], true, 0)], [0]);
  assert.is(u.confirm(1), undefined);
  assert.equal(u.confirm(0), { bytes: Uint8Array.of(0), seq: 0, eventIds: [7, 8] });
  assert.is(u.confirm(0), undefined); // confirmed once only
  for (let seq = 1; seq < 16; seq++) { u.send(build, [], false, 0); assert.ok(u.confirm(seq), String(seq)); }
  assert.equal([...u.send(build, [], false, 0)], [0]);
});

test('the confirm timer: waiting before the deadline, the same fragment again after it, given up after the retries', () => {
  const u = state(2);
  assert.equal(u.timer(0), { kind: 'idle' });
  u.send(build, [1], false, 0);
  assert.is(u.deadline(), 1000);
  assert.equal(u.timer(999), { kind: 'waiting' });
  assert.equal(u.timer(1000), { kind: 'retry', bytes: Uint8Array.of(0) });
  assert.is(u.deadline(), 2000);
  assert.equal(u.timer(2500), { kind: 'retry', bytes: Uint8Array.of(0) });
  assert.equal(u.timer(3500), { kind: 'gaveUp' });
  assert.is(u.deadline(), undefined);
  // The fragment given up leaves its sequence number behind: the next goes with 1, and a late CONFIRM 0 is unexpected.
  assert.is(u.confirm(0), undefined);
  assert.equal([...u.send(build, [], false, 4000)], [1]);
});

test('a new connection abandons the awaited fragment and moves on one sequence number; nothing awaited, nothing moves', () => {
  const u = state();
  assert.not.ok(u.abandon());
  u.send(build, [], true, 0);
  assert.ok(u.abandon());
  assert.is(u.deadline(), undefined);
  assert.equal([...u.send(build, [], true, 0)], [1]);
});

test.run();
