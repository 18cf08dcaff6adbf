// /readyz under load (docs/decisions.md#readiness-under-load): one failed or starved check does not make a
// process unready; FAILURES_TO_DOWN in a row do, naming the dependency; one answer makes it ready again; a
// process starting is unready until each dependency has answered once; probes asking at once share one round.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { afterCheck, FAILURES_TO_DOWN, healthRoutes } from '../../api/health/routes.js';
import { registry } from '../../config/metrics.js';

/** faultline_ready's samples as /metrics serves them: dependency -> value. */
async function readyGauge(): Promise<Record<string, number>> {
  const text = await registry.getSingleMetricAsString('faultline_ready');
  return Object.fromEntries([...text.matchAll(/^faultline_ready\{dependency="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
}

async function ask(app: ReturnType<typeof healthRoutes>): Promise<{ status: number; down: string[] }> {
  const res = await app.request('/readyz');
  const body = (await res.json()) as { checks: Record<string, string> };
  return { status: res.status, down: Object.entries(body.checks).filter(([, v]) => v === 'down').map(([k]) => k) };
}

test('the rule: down at once before the first answer; after that only after N failures in a row; up at the first answer', () => {
  let m = { everUp: false, failures: 0 };
  let r = afterCheck(m, false, 3);
  assert.is(r.up, false, 'starting: not ready until it answered');
  r = afterCheck(r.memory, true, 3);
  assert.is(r.up, true);
  m = r.memory;
  for (const n of [1, 2]) { r = afterCheck(m, false, 3); m = r.memory; assert.is(r.up, true, `${n} failure(s) in a row: still up`); }
  r = afterCheck(m, false, 3);
  assert.is(r.up, false, 'the third in a row: down');
  assert.is(afterCheck(r.memory, true, 3).up, true, 'one answer: up again');
  assert.equal(afterCheck(r.memory, true, 3).memory, { everUp: true, failures: 0 });
});

test('/readyz: a dependency that misses a check now and then stays ready; N misses in a row name it', async () => {
  const answers = [true, false, true, false, false, true, ...Array(FAILURES_TO_DOWN).fill(false), true];
  let i = 0;
  const app = healthRoutes({ database: async () => answers[i++]!, transport: async () => true });
  const seen: string[] = [];
  for (let n = 0; n < answers.length; n++) {
    const r = await ask(app);
    seen.push(r.status === 200 ? 'ready' : `503:${r.down.join('+')}`);
  }
  const expected = ['ready', 'ready', 'ready', 'ready', 'ready', 'ready', ...Array(FAILURES_TO_DOWN - 1).fill('ready'), '503:database', 'ready'];
  assert.equal(seen, expected);
});

test('/readyz: a check that hangs past the timeout counts as a failed check, and the answer does not hang', async () => {
  const app = healthRoutes({ registry: () => new Promise<boolean>(() => {}) }, { timeoutMs: 20 });
  const r = await ask(app);
  assert.equal(r, { status: 503, down: ['registry'] }, 'never answered since start: down at once');
});

test('/readyz: probes that arrive together share one round of checks', async () => {
  let calls = 0;
  const app = healthRoutes({ database: async () => { calls++; await new Promise((r) => setTimeout(r, 50)); return false; } });
  await ask(app); // not yet up: a starting process
  calls = 0;
  const answers = await Promise.all(Array.from({ length: 5 }, () => ask(app)));
  assert.is(calls, 1, 'five probes at once: one check');
  assert.ok(answers.every((a) => a.status === 503));
});

test('/metrics: faultline_ready says what /readyz says, per dependency and for the process, and 0 while draining', async () => {
  let registryUp = true;
  let draining = false;
  healthRoutes({ database: async () => true, registry: async () => registryUp }, { failuresToDown: 1, draining: () => draining });
  assert.equal(await readyGauge(), { database: 1, registry: 1, all: 1 });
  registryUp = false;
  assert.equal(await readyGauge(), { database: 1, registry: 0, all: 0 });
  registryUp = true;
  draining = true;
  assert.equal(await readyGauge(), { all: 0 });
});

test.run();
