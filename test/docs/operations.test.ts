// docs/operations.md against what exists: its process table names every `faultline start --only` component
// (enumerated from cli/start.ts, so a component added later must be documented), each process's example env
// file holds exactly its `--only` list and the variables the table names, every variable in the files is one
// the product reads, the systemd units pass `systemd-analyze verify`, and the Prometheus example scrapes the
// job the alert rules select on the port the files set.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import { variablesTheServiceReads } from '../../support/environment-variables.js';
import * as assert from 'uvu/assert';
import { COMPONENTS, parseOnly } from '../../cli/start.js';
import { componentsNotRun, envFiles, markdownSection, processTable, readEnvFile, SHARED_FILES } from '../helpers/deploy-files.js';

const root = new URL('../..', import.meta.url).pathname;
const UNIT_DIR = join(root, 'docs/examples/systemd');

test('the process table runs every --only component, or says why no production process does', () => {
  const rows = processTable();
  assert.ok(rows.length >= 7, `the table has a row per process kind: ${rows.map((r) => r.kind).join(', ')}`);
  const run = new Set<string>();
  for (const row of rows) for (const c of parseOnly(row.only) ?? []) run.add(c);
  const notRun = componentsNotRun();
  assert.equal(COMPONENTS.filter((c) => !run.has(c) && !notRun.includes(c)), [], 'every component is run by a process or listed as not run');
  assert.equal(notRun.filter((c) => run.has(c) || !(COMPONENTS as readonly string[]).includes(c)), [], 'the not-run list names components no process runs');
  assert.ok(rows.every((r) => parseOnly(r.only)!.has('api')), 'every process runs api, so each answers /readyz');
});

test('each process kind has its env file with its --only list and exactly the variables the table names', () => {
  const rows = processTable();
  for (const row of rows) {
    const vars = readEnvFile(row.file);
    assert.is(vars.get('FAULTLINE_ONLY'), row.only, `${row.file}: FAULTLINE_ONLY is the table's --only list`);
    assert.equal([...vars.keys()].filter((k) => k !== 'FAULTLINE_ONLY').sort(), [...row.variables].sort(), `${row.file}: its variables are the table's`);
  }
  assert.equal(envFiles().filter((f) => !rows.some((r) => r.file === f) && !(SHARED_FILES as readonly string[]).includes(f)), [], 'no env file without a process');
  assert.equal(SHARED_FILES.filter((f) => !envFiles().includes(f)), []);
});

// A variable in an env file that no code reads would be a setting that does nothing.
const readByCode = variablesTheServiceReads;

test('every variable of the env files is one the product reads (FAULTLINE_ONLY is the unit\'s)', () => {
  const read = readByCode();
  assert.ok(read.has('DATABASE_URL') && read.has('KAFKA_BROKERS'), 'the scan finds variables');
  const unknown = envFiles().flatMap((f) => [...readEnvFile(f).keys()].filter((k) => k !== 'FAULTLINE_ONLY' && !read.has(k)).map((k) => `${f}: ${k}`));
  assert.equal(unknown, []);
  assert.match(readFileSync(join(UNIT_DIR, 'faultline@.service'), 'utf8'), /^ExecStart=.* start --only \$\{FAULTLINE_ONLY\}$/m);
  // Secrets stay out of the world-readable files.
  for (const f of envFiles().filter((f) => f !== 'secrets.env' && f !== 'alarms.env')) {
    for (const k of ['DATABASE_URL', 'JWT_SECRET', 'ALARM_SMTP_URL', 'ALARM_SMS_TOKEN', 'FAULTLINE_SECRET_KEYS']) assert.not.ok(readEnvFile(f).has(k), `${f} holds ${k}`);
  }
});

// ops/faultline reads the same files as systemd does: test/ops/wrapper.test.ts runs it on each of them.

test('a path the unit may write but does not create is optional ("-"), so a missing archive mount does not fail the unit', () => {
  const unit = readFileSync(join(UNIT_DIR, 'faultline@.service'), 'utf8');
  const created = (/^StateDirectory=(.*)$/m.exec(unit)?.[1] ?? '').split(/\s+/).filter(Boolean).map((d) => `/var/lib/${d}`);
  const paths = unit.split('\n').filter((l) => l.startsWith('ReadWritePaths=')).flatMap((l) => l.slice('ReadWritePaths='.length).split(/\s+/)).filter(Boolean);
  assert.ok(paths.includes('-/srv/faultline-archive'), `the archive is listed: ${paths.join(' ')}`);
  assert.equal(paths.filter((p) => !p.startsWith('-') && !created.includes(p)), [], 'every path systemd does not create is prefixed "-"');
});

/** systemd-analyze verify of the units as shipped, with this machine's node as the executable. */
function verify(units: Record<string, string>, instance: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-units-'));
  try {
    for (const [name, text] of Object.entries(units)) writeFileSync(join(dir, name), text.replaceAll('/usr/bin/node', process.execPath));
    const names = Object.keys(units).map((n) => (n.endsWith('@.service') ? n.replace('@.service', `@${instance}.service`) : n));
    Object.keys(units).forEach((n, i) => { if (n !== names[i]) symlinkSync(join(dir, n), join(dir, names[i]!)); });
    const r = spawnSync('systemd-analyze', ['verify', '--man=no', ...names.map((n) => join(dir, n))], { encoding: 'utf8' });
    return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;
test('the systemd units pass systemd-analyze verify without a warning, and a broken one does not', () => {
  if (!hasSystemdAnalyze) { console.log('systemd-analyze is not installed here: the units were not verified'); return; }
  const units = Object.fromEntries(['faultline@.service', 'faultline-migrate.service'].map((n) => [n, readFileSync(join(UNIT_DIR, n), 'utf8')]));
  const ok = verify(units, 'pipeline');
  assert.equal(ok, { status: 0, output: '' });
  const broken = verify({ 'faultline@.service': units['faultline@.service']!.replace('Restart=on-failure', 'Restart=sometimes') }, 'pipeline');
  assert.match(broken.output, 'restart specifier', `a misspelt value is reported: ${broken.output}`);
});

test('the Prometheus example scrapes the job the alert rules select, on the env files\' METRICS_PORT, as the page shows it', () => {
  const file = readFileSync(join(root, 'docs/examples/prometheus/faultline-scrape.yml'), 'utf8');
  const rules = readFileSync(join(root, 'ops/prometheus/faultline-rules.yml'), 'utf8');
  const job = /job_name: (\S+)/.exec(file)![1]!;
  assert.match(rules, `up{job="${job}"}`);
  const port = readEnvFile('common.env').get('METRICS_PORT')!;
  const targets = /targets: \[([^\]]*)\]/.exec(file)![1]!.split(',').map((t) => t.trim().replace(/'/g, ''));
  assert.ok(targets.length > 0 && targets.every((t) => t.endsWith(`:${port}`)), `targets on METRICS_PORT ${port}: ${targets.join(', ')}`);
  const shown = /```yaml\n([\s\S]*?)```/.exec(markdownSection('Monitoring'))![1]!;
  assert.is(shown.trim(), file.split('\n').filter((l) => !l.startsWith('#')).join('\n').trim(), 'docs/operations.md shows the file');
});

test('the page has a contents list naming each of its sections', () => {
  const text = readFileSync(join(root, 'docs/operations.md'), 'utf8');
  const headings = text.split('\n').filter((l) => l.startsWith('## ') && l !== '## Contents').map((l) => l.slice(3));
  const contents = markdownSection('Contents');
  assert.equal(headings.filter((h) => !contents.includes(`[${h}](#`)), []);
});

test.run();
