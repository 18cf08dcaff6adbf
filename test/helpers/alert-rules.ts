// The alert rules of ops/prometheus/*.yml read as text, in the one shape this repository writes them (an `expr:` on
// one line, labels as a flow map): test/ops/alert-rules.test.ts checks them and the docs, and
// test/integration/ops/promtool.test.ts builds promtool unit tests from their summaries.

export interface Rule { alert: string; expr: string; for?: string; severity?: string; summary?: string; annotations: Record<string, string>; line: number }

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
      rule = { alert: m[1]!, expr: '', annotations: {}, line: i + 1 };
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
      // YAML's double-quoted escapes as these files use them (\" and \\) are JSON's.
      r.annotations[m[1]!] = JSON.parse(`"${m[2]!}"`) as string;
      if (m[1] === 'summary') r.summary = r.annotations[m[1]!];
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
