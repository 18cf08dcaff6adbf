// The shipped alert rules (ops/prometheus/*.yml) are well formed, IEC 104 is watched as DNP3 is, and every alert
// is described in docs/monitoring.md#alerts-what-each-means-and-what-to-do with its severity, what it means and
// what to do, and nothing else is described there (issue 42 point 4). No servers: the files are read as text
// (test/ops/metric-names.test.ts checks against a running faultline that every metric they name is served).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../..', import.meta.url).pathname;
const ruleFiles = readdirSync(join(root, 'ops/prometheus')).filter((f) => /\.ya?ml$/.test(f)).map((f) => `ops/prometheus/${f}`);
const monitoring = readFileSync(join(root, 'docs/monitoring.md'), 'utf8');

interface Rule { alert: string; expr: string; for?: string; severity?: string; summary?: string; line: number }

/**
 * The rules of a Prometheus rule file written in this repository's one shape (an `expr:` on one line, labels as a
 * flow map), with every problem found: a key outside a rule's grammar, an unbalanced expression, a duration or a
 * severity Prometheus or our routing would not take, a rule without a summary, a name twice.
 */
export function readRules(text: string): { rules: Rule[]; problems: string[] } {
  const rules: Rule[] = [];
  const problems: string[] = [];
  const lines = text.split('\n');
  if (!/^groups:\s*$/m.test(text)) problems.push('no top-level groups:');
  let rule: Rule | null = null;
  let inAnnotations = false;
  lines.forEach((raw, i) => {
    const line = raw.replace(/\s+$/, '');
    const at = `line ${i + 1}`;
    if (line === '' || /^\s*#/.test(line) || /^groups:$/.test(line) || /^ {2}- name: [\w-]+$/.test(line) || /^ {4}rules:$/.test(line)) return;
    let m: RegExpExecArray | null;
    if ((m = /^ {6}- alert: ([A-Za-z][A-Za-z0-9]*)$/.exec(line))) {
      rule = { alert: m[1]!, expr: '', line: i + 1 };
      rules.push(rule);
      inAnnotations = false;
      return;
    }
    if (!rule) { problems.push(`${at}: outside a rule: ${line.trim()}`); return; }
    const r: Rule = rule;
    if ((m = /^ {8}expr: (.+)$/.exec(line))) { r.expr = m[1]!; inAnnotations = false; return; }
    if ((m = /^ {8}for: (.+)$/.exec(line))) { r.for = m[1]!; inAnnotations = false; return; }
    if ((m = /^ {8}labels: \{ severity: (\w+) \}$/.exec(line))) { r.severity = m[1]!; inAnnotations = false; return; }
    if (/^ {8}annotations:$/.test(line)) { inAnnotations = true; return; }
    if (inAnnotations && (m = /^ {10}(summary|description): "((?:[^"\\]|\\.)*)"$/.exec(line))) {
      if (m[1] === 'summary') r.summary = m[2]!;
      return;
    }
    problems.push(`${at} (${r.alert}): not a rule key this file uses: ${line.trim()}`);
  });
  const seen = new Set<string>();
  for (const r of rules) {
    const where = `${r.alert} (line ${r.line})`;
    if (seen.has(r.alert)) problems.push(`${where}: named twice`);
    seen.add(r.alert);
    if (!r.alert.startsWith('Faultline')) problems.push(`${where}: not named Faultline...`);
    if (!r.expr) problems.push(`${where}: no expr`);
    const open = (c: string, d: string) => [...r.expr].reduce((n, ch) => (n < 0 ? n : n + (ch === c ? 1 : ch === d ? -1 : 0)), 0);
    if (open('(', ')') !== 0 || open('[', ']') !== 0 || open('{', '}') !== 0) problems.push(`${where}: unbalanced brackets in ${r.expr}`);
    for (const range of r.expr.matchAll(/\[([^\]]*)\]/g)) if (!/^\d+[smhdw]$/.test(range[1]!)) problems.push(`${where}: range [${range[1]}] is not a duration`);
    if ((r.expr.match(/"/g) ?? []).length % 2 !== 0) problems.push(`${where}: unbalanced quotes in ${r.expr}`);
    if (r.for !== undefined && !/^\d+[smhd]$/.test(r.for)) problems.push(`${where}: for: ${r.for} is not a duration`);
    if (r.severity !== 'page' && r.severity !== 'ticket') problems.push(`${where}: severity ${r.severity ?? '(none)'}, not page or ticket`);
    if (!r.summary) problems.push(`${where}: no summary`);
  }
  return { rules, problems };
}

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
