// plumbing/retry.ts's default reads the error base (docs/decisions.md#one-error-base): one of ours that says it
// is not retriable is thrown at once; a retriable one, and anything that is not ours, is tried again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FaultlineError } from '../../errors/base.js';
import { retry } from '../../plumbing/retry.js';

class Sample extends FaultlineError<'SAMPLE'> {
  constructor(retriable: boolean) { super('SAMPLE', 'a sample', { retriable }); }
}

/** How many attempts `retry` made at a function that always throws `err`. */
async function attemptsAt(err: unknown): Promise<number> {
  let n = 0;
  await retry(async () => { n++; throw err; }, { retries: 3, initialMs: 1, maxMs: 1 }).catch(() => {});
  return n;
}

test('ours not retriable: one attempt; ours retriable and anything else: every attempt', async () => {
  assert.is(await attemptsAt(new Sample(false)), 1);
  assert.is(await attemptsAt(new Sample(true)), 4);
  assert.is(await attemptsAt(new Error('unknown')), 4);
});

test('a caller\'s own rule still decides', async () => {
  let n = 0;
  await retry(async () => { n++; throw new Sample(true); }, { retries: 3, initialMs: 1, maxMs: 1, retriable: () => false }).catch(() => {});
  assert.is(n, 1);
});

test.run();
