// docs/troubleshooting.md is read against the code, so it cannot fall behind what the service logs and refuses:
// - every warn or error line the SCADA master listener and the stage runner log is quoted on the page (an
//   operator searches the page for the line in front of them);
// - every refusal reason of the listener has a row in "A SCADA master is refused", and every reason the page
//   names for DNP3 or IEC 104 exists;
// - every dead-letter code the pipeline writes has a row in "A dead-lettered file or message";
// - every alert the page names is a rule in ops/prometheus.
// Its `faultline ...` lines are checked by test/docs/commands.test.ts, its links by references.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DISCARD_REASONS } from '../../dnp3/diagnostics/reasons.js';
import { REJECTION_CODES } from '../../domain/errors.js';
import { LISTENER_REASONS, REFUSAL_REASONS } from '../../iec104/diagnostics/reasons.js';

const root = new URL('../..', import.meta.url).pathname;
const text = (f: string) => readFileSync(join(root, f), 'utf8');
const page = text('docs/troubleshooting.md');

/** The body of the page's `## ` section with this heading. */
function section(heading: string): string {
  const start = page.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/troubleshooting.md has a section "${heading}"`);
  return page.slice(start).split(/\n## /)[1]!;
}

/** The backticked first cells of a section's table rows. */
const firstCells = (body: string) => [...body.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);

/** The messages of the warn and error log calls of a source file (a literal of the call or the line after it). */
function loggedMessages(source: string): string[] {
  const lines = source.split('\n');
  return lines.flatMap((line, i) => (/\blog\.(warn|error)\(/.test(line)
    ? [...lines.slice(i, i + 2).join(' ').matchAll(/'([^']{15,})'/g)].map((m) => m[1]!).filter((s) => s.includes(' '))
    : []));
}

test('the log reader finds a call\'s messages, on its line or the next (the check can fail)', () => {
  const source = "log.warn({ component: 'x' }, 'one message here');\nlog.error({ a: 1 },\n  ok ? 'the second message' : 'the third message');\nlog.info({}, 'not a warning at all');";
  assert.equal(loggedMessages(source), ['one message here', 'the second message', 'the third message']);
});

test('every warn or error line of the SCADA master listener and the stage runner is quoted on the page', () => {
  const files = ['integrations/master-listener.ts', 'integrations/master-roster.ts', 'stages/runtime/runner.ts'];
  const messages = files.flatMap((f) => loggedMessages(text(f)).map((m) => [f, m] as const));
  assert.ok(messages.length >= 8, `log messages read: ${messages.length}`);
  const flowing = page.replace(/\s*\n\s*/g, ' '); // a quoted line may wrap, as Markdown allows
  assert.equal(messages.filter(([, m]) => !flowing.includes(`\`${m}\``)).map(([f, m]) => `${f}: "${m}"`), []);
  assert.ok(text('dnp3/service.ts').includes('`DNP3 master: ${') && page.includes('`DNP3 master: '), 'the DNP3 discard line');
});

test('every refusal reason of the listener has a row; every DNP3 and IEC 104 reason the page names exists', () => {
  const rows = firstCells(section('A SCADA master is refused'));
  assert.equal(Object.keys(LISTENER_REASONS).filter((r) => !rows.includes(r)), [], 'listener reasons without a row');
  assert.equal(rows.filter((r) => !Object.hasOwn(LISTENER_REASONS, r)), [], 'rows that are no listener reason');
  const dnp3 = firstCells(section('The SCADA master sees only time-outs (DNP3)'));
  assert.ok(dnp3.length > 3);
  assert.equal(dnp3.filter((r) => !Object.hasOwn(DISCARD_REASONS, r)), [], 'DNP3 rows that are no discard reason');
  const iec104 = [...section('An IEC 104 master\'s connection is closed').matchAll(/`([a-z][A-Za-z0-9]+)`/g)].map((m) => m[1]!);
  assert.ok(iec104.length > 3);
  assert.equal(iec104.filter((r) => !Object.hasOwn(REFUSAL_REASONS, r)), [], 'IEC 104 reasons that do not exist');
});

test('every dead-letter code the pipeline writes has a row, and every row is a code', () => {
  const rows = firstCells(section('A dead-lettered file or message'));
  const runner = [...text('stages/runtime/runner.ts').matchAll(/code: '([A-Z_]+)'/g)].map((m) => m[1]!);
  assert.ok(runner.includes('PROCESSING_FAILED'));
  // The codes the bridge and the validator write (UNKNOWN_DEVICE is for resubmission and the API: an unknown
  // device's check-in is stored, docs/decisions.md#unknown-device).
  const written = ['stages/bridge/bridge.ts', 'domain/validate-message.ts'].flatMap((f) => Object.keys(REJECTION_CODES).filter((c) => text(f).includes(`'${c}'`)));
  assert.ok(written.includes('MALFORMED') && written.includes('INVALID'), `codes read: ${written.join(', ')}`);
  assert.equal([...new Set([...written, ...runner])].filter((c) => !rows.includes(c)), [], 'codes without a row');
  assert.equal(rows.filter((c) => !Object.hasOwn(REJECTION_CODES, c) && !runner.includes(c)), [], 'rows that are no code');
});

test('every alert the page names is a rule in ops/prometheus', () => {
  const rules = readdirSync(join(root, 'ops/prometheus')).filter((f) => /\.ya?ml$/.test(f)).map((f) => text(`ops/prometheus/${f}`)).join('\n');
  const alerts = new Set([...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]!));
  const named = [...new Set([...page.matchAll(/`(Faultline[A-Z]\w+)`/g)].map((m) => m[1]!))];
  assert.ok(named.length > 10, `alerts named: ${named.length}`);
  assert.equal(named.filter((a) => !alerts.has(a)), []);
});

test.run();
