// When a spool file that does not parse counts as finished (stages/bridge/settle.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SETTLE_MS, settling } from '../../stages/bridge/settle.js';

const now = 1_800_000_000_000;

test('changed within the last second (by its modification time or by what the spool saw): still being written', () => {
  assert.ok(settling({ size: 10, mtimeMs: now - 10, since: now - 5_000 }, now), 'modified just now');
  assert.ok(settling({ size: 10, mtimeMs: now - 60_000, since: now }, now), 'first seen so just now (a writer clock behind)');
  assert.ok(settling({ size: 10, mtimeMs: now - 60_000, since: now - SETTLE_MS + 1 }, now));
});

test('unchanged for a second: finished, so a parse failure is a malformed message', () => {
  assert.not.ok(settling({ size: 10, mtimeMs: now - SETTLE_MS, since: now - SETTLE_MS }, now));
  assert.not.ok(settling({ size: 0, mtimeMs: now - 60_000, since: now - 2_000 }, now), 'an empty file left alone');
});

test('a modification time far in the future (a clock ahead) cannot hold a file forever', () => {
  assert.not.ok(settling({ size: 10, mtimeMs: now + 3_600_000, since: now - 2_000 }, now));
  assert.ok(settling({ size: 10, mtimeMs: now + 3_600_000, since: now - 10 }, now), 'still a second from first sight');
});

test.run();
