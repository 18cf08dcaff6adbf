// The shipped alert rules (ops/prometheus/*.yml) are well formed, IEC 104 is watched as DNP3 is, and every alert
// is described in docs/monitoring.md#alerts-what-each-means-and-what-to-do with its severity, what it means and
// what to do, and nothing else is described there (issue 42 point 4). No servers: the files are read as text
// (test/ops/metric-names.test.ts checks against a running faultline that every metric they name is served).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readRules } from '../helpers/alert-rules.js';

const root = new URL('../..', import.meta.url).pathname;
const ruleFiles = readdirSync(join(root, 'ops/prometheus')).filter((f) => /\.ya?ml$/.test(f)).map((f) => `ops/prometheus/${f}`);
const monitoring = readFileSync(join(root, 'docs/monitoring.md'), 'utf8');

/** The rows of docs/monitoring.md's alert table: alert name and severity. */
export function describedAlerts(markdown: string): Map<string, string> {
  const section = /^## Alerts: what each means and what to do\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1] ?? '';
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `(\w+)` \| (\w+) \| ([^|]+) \| ([^|]+) \|$/gm)) {
    if (m[3]!.trim().length > 10 && m[4]!.trim().length > 10) rows.set(m[1]!, m[2]!);
  }
  return rows;
}

const shipped = ruleFiles.map((f) => ({ file: f, ...readRules(readFileSync(join(root, f), 'utf8')) }));
const allRules = shipped.flatMap((s) => s.rules);

test('the readers can fail: a broken rule and an undescribed alert are reported', () => {
  const broken = readRules(`groups:\n  - name: x\n    rules:\n      - alert: FaultlineX\n        expr: sum(rate(faultline_y_total[5q])\n        for: 5 minutes\n        labels: { severity: urgent }\n        annotaions:\n`);
  assert.equal(broken.problems.length, 6, broken.problems.join('\n'));
  assert.equal([...describedAlerts('## Alerts: what each means and what to do\n\n| `FaultlineX` | page | it means this | do that thing |\n| `FaultlineY` | page | | |\n## Next\n')], [['FaultlineX', 'page']]);
});

test('every rule file is well formed', () => {
  assert.ok(shipped.length >= 1 && allRules.length >= 30, `${ruleFiles.join(', ')}: ${allRules.length} rules`);
  for (const s of shipped) assert.equal(s.problems, [], s.file);
});

test('IEC 104 has the alerts DNP3 has: master connected, discards, confirm time', () => {
  const uses = (metric: string) => allRules.filter((r) => r.expr.includes(metric)).map((r) => r.alert);
  for (const [dnp3, iec104] of [['faultline_dnp3_sessions', 'faultline_iec104_sessions'], ['faultline_dnp3_discarded_total', 'faultline_iec104_refused_total'], ['faultline_dnp3_confirmed_seconds', 'faultline_iec104_confirmed_seconds']] as const) {
    assert.ok(uses(dnp3).length > 0, `no rule reads ${dnp3}`);
    assert.ok(uses(iec104).length > 0, `no rule reads ${iec104}, as ${uses(dnp3).join(', ')} reads ${dnp3}`);
  }
});

test('every alert is described in docs/monitoring.md with its severity, and only those', () => {
  const described = describedAlerts(monitoring);
  const severities = new Map(allRules.map((r) => [r.alert, r.severity]));
  assert.equal([...severities.keys()].filter((a) => !described.has(a)), [], 'alerts the rules ship that docs/monitoring.md does not describe');
  assert.equal([...described.keys()].filter((a) => !severities.has(a)), [], 'alerts docs/monitoring.md describes that no rule ships');
  assert.equal([...described].filter(([a, s]) => severities.get(a) !== s).map(([a, s]) => `${a}: docs ${s}, rule ${severities.get(a)}`), []);
  // No page names an alert that does not exist (a renamed rule leaves no stale name behind).
  const named = new Set([...monitoring.matchAll(/\bFaultline[A-Z]\w+/g)].map((m) => m[0]));
  assert.equal([...named].filter((a) => !severities.has(a)), []);
});

test.run();
