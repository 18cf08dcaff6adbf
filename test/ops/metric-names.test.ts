// ops/prometheus/faultline-rules.yml and ops/grafana/faultline.json name only metrics that /metrics serves:
// faultline starts (the embedded default: every component, so every metric is registered) and the names in
// its `# TYPE` lines are compared with every faultline_* name the rules' `expr:` lines and the dashboard's
// target expressions use. Histogram series (_bucket, _sum, _count) count as their histogram. The other way round,
// every faultline metric served is on the dashboard (Node's own process metrics aside), so a metric added later
// gets a panel; and the storage, incident and readiness gauges the alerts read carry values.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { waitFor } from '../../support/wait-for.js';

const root = new URL('../../', import.meta.url).pathname;
let proc: FaultlineProcess | null = null;
let dataDir = '';
let served = new Set<string>();
let metricsUrl = '';
/** Node's default process metrics (prom-client collectDefaultMetrics), served under the same prefix. */
const NODE_DEFAULTS = /^faultline_(process|nodejs)_/;

/** faultline_* metric names an expression uses. */
export function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\bfaultline_[a-z0-9_]+/g)].map((m) => m[0]);
}

function missing(names: string[]): string[] {
  return [...new Set(names)].filter((n) => !served.has(n) && !served.has(n.replace(/_(bucket|sum|count)$/, '')));
}

function ruleExpressions(): string[] {
  return readFileSync(join(root, 'ops/prometheus/faultline-rules.yml'), 'utf8').split('\n')
    .map((l) => /^\s*expr:\s*(.+)$/.exec(l)?.[1]).filter((e): e is string => e !== undefined);
}

function dashboardExpressions(): string[] {
  const d = JSON.parse(readFileSync(join(root, 'ops/grafana/faultline.json'), 'utf8')) as { panels: { targets: { expr: string }[] }[] };
  return d.panels.flatMap((p) => p.targets.map((t) => t.expr));
}

test.before(async () => {
  const port = await freePort();
  dataDir = mkdtempSync(join(tmpdir(), 'faultline-metrics-'));
  proc = startFaultline(['start'], { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', EMBEDDED_PG_PORT: String(await freePort()), SIMULATE: '0', DNP3_PORT: String(await freePort()) });
  await waitFor('faultline to serve /metrics', async () => (await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => null))?.ok ?? false, { timeoutMs: 120_000, intervalMs: 250 })
    .catch((err: Error) => { throw new Error(`${err.message}\n${proc?.output().slice(-3000) ?? ''}`); });
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const text = await (await fetch(metricsUrl)).text();
  served = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
});

test.after(async () => {
  await proc?.stop('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

test('the check can fail: a name /metrics does not serve is reported', () => {
  assert.ok(served.has('faultline_stage_records_total'), `served: ${[...served].join(', ')}`);
  assert.equal(missing(metricNames('rate(faultline_no_such_metric_total[5m])')), ['faultline_no_such_metric_total']);
});

test('every metric in the Prometheus rules is served', () => {
  const exprs = ruleExpressions();
  assert.ok(exprs.length >= 5, `rules read: ${exprs.length}`);
  assert.equal(missing(exprs.flatMap(metricNames)), []);
});

test('every metric on the Grafana dashboard is served', () => {
  const exprs = dashboardExpressions();
  assert.ok(exprs.length >= 5, `targets read: ${exprs.length}`);
  assert.equal(missing(exprs.flatMap(metricNames)), []);
});

test('every faultline metric /metrics serves is on the dashboard (Node\'s own process metrics aside)', () => {
  const shown = new Set(dashboardExpressions().flatMap(metricNames).map((n) => n.replace(/_(bucket|sum|count)$/, '')));
  assert.equal([...served].filter((n) => !NODE_DEFAULTS.test(n) && !shown.has(n) && !shown.has(`${n}_bucket`)).sort(), []);
});

test('the gauges the storage, incident and readiness alerts read carry values', async () => {
  const value = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  let text = '';
  // Retention runs once at start (storage/maintenance.ts); the embedded database holds nothing to remove.
  await waitFor('retention to have run', async () => {
    text = await (await fetch(metricsUrl)).text();
    return value(text, 'faultline_retention_last_success_timestamp_seconds') > 0;
  }, { timeoutMs: 120_000, intervalMs: 500 });
  assert.ok(Math.abs(value(text, 'faultline_retention_last_success_timestamp_seconds') - Date.now() / 1000) < 600);
  assert.is(value(text, 'faultline_incident_inbox_pending'), 0);
  assert.is(value(text, 'faultline_incident_inbox_oldest_seconds'), 0);
  assert.is(value(text, 'faultline_ready{dependency="all"}'), 1);
  assert.is(value(text, 'faultline_ready{dependency="database"}'), 1);
});

test.run();
