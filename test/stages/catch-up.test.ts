// Where a consumer group stands against offsets it has to reach (stages/runtime/catch-up.ts): what replay and
// fault-compute's wait for persist (docs/pipeline.md#state-across-a-cut) poll until nothing is left behind.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { endsOf, recordsBehind, stillBehind } from '../../stages/runtime/catch-up.js';

const lag = (partition: number, next: number, end: number) => ({ partition, next: String(next), end: String(end) });

test('behind where the next offset is short of the target, by the difference; at or past it, not', () => {
  const targets = new Map([[0, 10n], [1, 5n], [2, 7n]]);
  const behind = stillBehind([lag(0, 4, 12), lag(1, 5, 9), lag(2, 9, 9)], targets);
  assert.equal(behind, [{ partition: 0, records: 6n }]);
  assert.is(recordsBehind(behind), 6n);
});

test('a partition with no target is never behind (it was not asked for)', () => {
  assert.equal(stillBehind([lag(0, 0, 100), lag(1, 0, 3)], new Map([[1, 3n]])), [{ partition: 1, records: 3n }]);
});

test('targets: the log ends of the partitions asked for, or of every partition', () => {
  const ends = [lag(0, 0, 4), lag(1, 2, 9), lag(2, 0, 0)];
  assert.equal([...endsOf(ends, [1])], [[1, 9n]]);
  assert.equal([...endsOf(ends, null)], [[0, 4n], [1, 9n], [2, 0n]]);
});

test('a group that never committed stands at the start of what the log holds: an empty log, or one whose records retention removed, waits for nothing', () => {
  // groupLag gives such a group next = the log start (low watermark); an empty log has start = end.
  assert.equal(stillBehind([lag(0, 0, 0), lag(1, 40, 40)], endsOf([lag(0, 0, 0), lag(1, 40, 40)], null)), []);
});

test.run();
