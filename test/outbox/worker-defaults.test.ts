// The outbox loop's defaults hold when a caller passes an option as undefined (alarms/start.ts passes its own
// optional `backoff` through): a failed send is tried again after the documented back-off, 1 s doubling to
// 10 minutes (docs/integration.md#success-and-retries), not plumbing/retry.ts's shorter general default.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { startOutboxWorker } from '../../outbox/worker.js';
import type { ClaimedBase, OutboxTable } from '../../outbox/table.js';

/** A table of one row that always fails, recording the delay of each failure. */
function failingTable(attempts: number, delays: number[]): OutboxTable<ClaimedBase> {
  return {
    spec: { table: 'stub', lane: ['x'], columns: [] },
    claimDue: async () => [{ id: 1, attempts, created_at: new Date() }],
    markDelivered: async () => {},
    markFailed: async (_pool, _id, _error, delayMs) => { delays.push(delayMs); },
    pendingCount: async () => 1,
    list: async () => [],
    retry: async () => false,
  };
}

test('undefined options keep the defaults: back-off ceiling 1 s at the first failure, capped at 10 min from the eleventh', async () => {
  const random = Math.random;
  Math.random = () => 1; // full jitter at its ceiling
  try {
    for (const [attempts, ceiling] of [[1, 1_000], [4, 8_000], [11, 600_000]] as const) {
      const delays: number[] = [];
      const worker = startOutboxWorker({
        name: 'test', label: 'test', pool: {} as pg.Pool, table: failingTable(attempts, delays), backoff: undefined, pollMs: undefined,
        send: async () => { throw new Error('down'); },
        failure: () => ({ code: 'DOWN', message: 'down', retriable: true }),
        maxAgeMs: () => 3_600_000,
        describe: () => ({}),
      }, { loop: false });
      await worker.runOnce();
      await worker.stop();
      assert.equal(delays, [ceiling], `attempt ${attempts}`);
    }
  } finally {
    Math.random = random;
  }
});

test.run();
