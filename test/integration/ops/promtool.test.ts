// The shipped alert rules as Prometheus loads and evaluates them (issue 42 point 4): `promtool check rules` on
// every ops/prometheus/*.yml, and `promtool test rules` firing the IEC 104 alerts, and the DNP3 alerts they mirror,
// on series written here: a master gone for 10 minutes pages and one back does not, refusals past the threshold
// open a ticket, a slow acknowledgement p95 opens a ticket. promtool comes from Debian's prometheus package,
// extracted without installing it (infra/promtool.sh). The expected annotations are the rules' own summaries with
// the labels filled in, so a reworded summary needs no edit here.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readRules, type Rule } from '../../helpers/alert-rules.js';

const root = new URL('../../..', import.meta.url).pathname;
const RULES = join(root, 'ops/prometheus/faultline-rules.yml');
const work = mkdtempSync(join(tmpdir(), 'promtool-'));
let promtool = '';
const rules = new Map<string, Rule>(readRules(readFileSync(RULES, 'utf8')).rules.map((r) => [r.alert, r]));

function run(args: string[]): { code: number; out: string } {
  const r = spawnSync(promtool, args, { encoding: 'utf8' });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** An alert firing with these labels, as promtool expects it: the rule's severity and annotations, labels filled in. */
function firing(alert: string, labels: Record<string, string>): { exp_labels: Record<string, string>; exp_annotations: Record<string, string> } {
  const rule = rules.get(alert);
  if (!rule) throw new Error(`no rule ${alert}`);
  const fill = (s: string) => s.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, k: string) => labels[k] ?? '');
  return {
    exp_labels: { ...labels, severity: rule.severity! },
    exp_annotations: Object.fromEntries(Object.entries(rule.annotations).map(([k, v]) => [k, fill(v)])),
  };
}

/** Cumulative histogram buckets rising by `perMinute` observations a minute, all above `le` 60 s (a slow master). */
function slowHistogram(metric: string, organization: string, minutes: number): { series: string; values: string }[] {
  const le = (b: string, rising: boolean) => ({ series: `${metric}_bucket{organization="${organization}",le="${b}"}`, values: rising ? `0+10x${minutes}` : `0x${minutes}` });
  return [le('1', false), le('60', false), le('300', true), le('+Inf', true)];
}

test.before(() => {
  const r = spawnSync('bash', [join(root, 'infra/promtool.sh')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`infra/promtool.sh failed (exit ${r.status}):\n${r.stderr}`);
  promtool = r.stdout.trim().split('\n').at(-1)!;
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test('the check can fail: a broken rule file is refused', () => {
  const broken = join(work, 'broken.yml');
  writeFileSync(broken, 'groups:\n  - name: x\n    rules:\n      - alert: FaultlineX\n        expr: sum(rate(faultline_y_total[5m])\n');
  const r = run(['check', 'rules', broken]);
  assert.is.not(r.code, 0, r.out);
});

test('every rule file of ops/prometheus loads in Prometheus (promtool check rules)', () => {
  const files = readdirSync(join(root, 'ops/prometheus')).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(root, 'ops/prometheus', f));
  assert.ok(files.length >= 1);
  for (const f of files) {
    const r = run(['check', 'rules', f]);
    assert.is(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS: \d+ rules found/);
  }
});

test('the IEC 104 alerts fire as the DNP3 alerts they mirror (promtool test rules)', () => {
  const north = { integration: 'north-104' };
  const tests = [
    {
      // Started for 5 minutes, then gone: nothing at 10 min (gone 4), a page at 20 min; a master back clears it.
      interval: '1m',
      input_series: [
        { series: 'faultline_iec104_sessions{integration="north-104",instance="a"}', values: '1x5 0x20' },
        { series: 'faultline_iec104_sessions{integration="south-104",instance="a"}', values: '1x25' },
        { series: 'faultline_dnp3_sessions{integration="north-scada",instance="a"}', values: '1x5 0x20' },
      ],
      alert_rule_test: [
        { eval_time: '10m', alertname: 'FaultlineIec104MasterDisconnected', exp_alerts: [] },
        { eval_time: '20m', alertname: 'FaultlineIec104MasterDisconnected', exp_alerts: [firing('FaultlineIec104MasterDisconnected', north)] },
        { eval_time: '20m', alertname: 'FaultlineDnp3MasterDisconnected', exp_alerts: [firing('FaultlineDnp3MasterDisconnected', { integration: 'north-scada' })] },
      ],
    },
    {
      // 2 refusals a minute of one reason: 30 in 15 minutes, past 10, a ticket for that reason; a reason that never moves, none.
      interval: '1m',
      input_series: [
        { series: 'faultline_iec104_refused_total{integration="north-104",reason="unknownType",instance="a"}', values: '0+2x30' },
        { series: 'faultline_iec104_refused_total{integration="north-104",reason="t1Expired",instance="a"}', values: '0x30' },
      ],
      alert_rule_test: [
        { eval_time: '25m', alertname: 'FaultlineIec104Refusals', exp_alerts: [firing('FaultlineIec104Refusals', { ...north, reason: 'unknownType' })] },
      ],
    },
    {
      // Every acknowledgement between 60 and 300 s after the store: the p95 is above 60 s; a ticket after 15 min.
      interval: '1m',
      input_series: [...slowHistogram('faultline_iec104_confirmed_seconds', 'north', 60), ...slowHistogram('faultline_dnp3_confirmed_seconds', 'north', 60)],
      alert_rule_test: [
        { eval_time: '10m', alertname: 'FaultlineIec104ConfirmSlow', exp_alerts: [] },
        { eval_time: '40m', alertname: 'FaultlineIec104ConfirmSlow', exp_alerts: [firing('FaultlineIec104ConfirmSlow', { organization: 'north' })] },
        { eval_time: '40m', alertname: 'FaultlineDnp3ConfirmSlow', exp_alerts: [firing('FaultlineDnp3ConfirmSlow', { organization: 'north' })] },
      ],
    },
  ];
  // JSON is YAML: promtool reads this file as it reads a hand-written one.
  const file = join(work, 'iec104-alerts.test.yml');
  writeFileSync(file, JSON.stringify({ rule_files: [RULES], evaluation_interval: '1m', tests }, null, 2));
  const r = run(['test', 'rules', file]);
  assert.is(r.code, 0, r.out);
  assert.match(r.out, /SUCCESS/);
});

test.run();
