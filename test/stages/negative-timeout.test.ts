// kafkajs's request queue arms a timeout of minus the epoch when nothing is throttled; Node 24 reports it as a
// TimeoutNegativeWarning in every process that talks to Kafka (stages/runtime/transport/kafka/negative-timeout.ts).
// That one warning is gone; a negative timeout of our own still warns. Run on the runtime that runs the suite
// (.ci/run: Node 24, where kafkajs's warning appears).
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../../', import.meta.url).pathname;
const run = (script: string) => spawnSync(process.execPath, ['--import', 'tsx', '--import', './stages/runtime/transport/kafka/negative-timeout.ts', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });

test('the kafkajs request queue schedules its check without a TimeoutNegativeWarning', () => {
  const r = run(`
    import { createRequire } from 'node:module';
    const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js');
    const queue = new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 1000, clientId: 't', broker: 'b', logger: { debug() {}, info() {}, warn() {}, error() {} } });
    queue.scheduleCheckPendingRequests();
    setTimeout(() => queue.destroy(), 20);
  `);
  assert.is(r.status, 0, r.stderr);
  assert.not.match(r.stderr, /TimeoutNegativeWarning/);
});

test('any other TimeoutNegativeWarning is still printed', () => {
  const r = run(`process.emitWarning('-5 is a negative number.', 'TimeoutNegativeWarning');`);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stderr, /TimeoutNegativeWarning: -5 is a negative number/);
});

test.run();
