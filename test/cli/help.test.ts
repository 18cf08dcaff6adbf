// `faultline <command> [subcommand] --help` for every command and subcommand of the command table, run as an
// operator runs it, with a database that cannot be reached and a data directory that must stay absent: each
// exits 0, prints its options with their defaults and its exit codes, and touches nothing. A command added to
// the table is covered without editing this file. Also the usage errors (exit 2) and --version.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COMMANDS, EXIT, commandNames, exitCodesOf, optionsOf, type CommandSpec } from '../../cli/command-table.js';
import { readCommandLine, UsageError } from '../../cli/usage.js';
import { COMPONENTS } from '../../cli/start.js';

const root = new URL('../../', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'faultline-help-'));
const dataDir = join(scratch, 'data');
// Port 1 on loopback refuses at once: a command that tried to connect would fail, not hang.
const env = { ...process.env, DATABASE_URL: 'postgres://faultline:x@127.0.0.1:1/unreachable', DATA_DIR: dataDir, ARCHIVE_DIR: join(scratch, 'archive'), KAFKA_BROKERS: '', SQS_QUEUE_URL: '', LOG_LEVEL: 'debug' };
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

function faultline(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/faultline.js', ...args], { cwd: root, env, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** Runs the jobs a few at a time (the machine is shared). */
async function inTurn<T, R>(items: T[], job: (item: T) => Promise<R>, width = 3): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) { const i = next++; out[i] = await job(items[i]!); }
  }));
  return out;
}

/** Every help invocation the table implies: each command with --help and -h, each subcommand with one of them. */
const invocations: { args: string[]; spec: CommandSpec; sub: string | null }[] = commandNames().flatMap((name) => {
  const spec: CommandSpec = COMMANDS[name];
  const subs = Object.keys(spec.subcommands ?? {});
  return [
    { args: [name, '--help'], spec, sub: null }, { args: [name, '-h'], spec, sub: null },
    ...subs.map((sub, i) => ({ args: [name, sub, i % 2 ? '-h' : '--help'], spec, sub })),
  ];
});

test('every command and subcommand --help exits 0 with its options, defaults and exit codes, touching nothing', async () => {
  assert.ok(invocations.length > 30, 'the table was enumerated');
  const results = await inTurn(invocations, (i) => faultline(i.args));
  const failed: string[] = [];
  invocations.forEach(({ args, spec, sub }, n) => {
    const { code, stdout, stderr } = results[n]!;
    const why: string[] = [];
    if (code !== 0) why.push(`exit ${code}: ${stderr.trim()}`);
    if (stderr.trim()) why.push(`stderr: ${stderr.trim()}`);
    const options = sub === null ? Object.entries(spec.options) : optionsOf(spec, sub);
    const flat = stdout.replace(/\s+/g, ' '); // help folds long lines
    for (const [name, o] of options) {
      if (!stdout.includes(`--${name}`)) why.push(`--${name} not shown`);
      if (o.type === 'string' && o.default !== undefined && !flat.includes(`(default: ${o.default})`)) why.push(`--${name}'s default not shown`);
    }
    for (const [codeNumber] of exitCodesOf(spec)) if (!new RegExp(`^ +${codeNumber} +\\S`, 'm').test(stdout)) why.push(`exit code ${codeNumber} not shown`);
    if (why.length) failed.push(`faultline ${args.join(' ')}: ${why.join('; ')}`);
  });
  assert.equal(failed, []);
  assert.not.ok(existsSync(dataDir), 'no data directory was created');
});

test('faultline --help lists every command and subcommand; --version prints the release', async () => {
  const [help, bare, ver] = await inTurn([['--help'], [], ['--version']], faultline);
  assert.is(help!.code, 0);
  assert.is(bare!.stdout, help!.stdout, 'no arguments prints the same help');
  for (const name of commandNames()) {
    const spec: CommandSpec = COMMANDS[name];
    for (const sub of Object.keys(spec.subcommands ?? {})) assert.match(help!.stdout, new RegExp(`^  ${name} \\[?${sub}\\b`, 'm'), `${name} ${sub}`);
    assert.match(help!.stdout, new RegExp(`^  ${name}\\b`, 'm'), name);
  }
  assert.equal([ver!.code, ver!.stdout], [0, `faultline ${version}\n`]);
  assert.not.ok(existsSync(dataDir));
});

test('usage errors: one line naming the problem and pointing to --help, exit 2, before anything opens', async () => {
  const cases: [string[], RegExp][] = [
    [['outbox', 'list', '--dead'], /^faultline outbox list: unknown option --dead \(faultline outbox list --help shows the options\)\n$/],
    [['migrate', '--dry-run'], /^faultline migrate: unknown option --dry-run \(faultline migrate --help/],
    [['archive', '-x'], /^faultline archive list: unknown option -x /],
    [['outbox', 'retry', '--all', '7'], /^faultline outbox retry: --all belongs to `outbox resync`/],
    [['outbox', 'frob'], /^faultline outbox: unknown subcommand "frob"; it has list, retry, resync/],
    [['unregistered', 'now'], /^faultline unregistered: unexpected argument "now"; it takes none/],
    [['frob'], /^faultline: unknown command "frob" \(faultline --help lists the commands\)\n$/],
  ];
  const results = await inTurn(cases, ([args]) => faultline(args));
  cases.forEach(([args, expected], i) => {
    assert.is(results[i]!.code, EXIT.usage, args.join(' '));
    assert.match(results[i]!.stderr, expected);
    assert.is(results[i]!.stderr.trim().split('\n').length, 1, 'one line');
  });
  assert.not.ok(existsSync(dataDir));
});

test('the command line reader: help wins over anything else on the line; values keep the table\'s defaults', () => {
  const read = (...argv: string[]) => readCommandLine(argv, version);
  assert.is(read('outbox', '--dead', '--help').kind, 'help');
  assert.is(read('help', 'outbox', 'retry').kind, 'help');
  assert.match((read('outbox', 'retry', '-h') as { text: string }).text, /^faultline outbox retry:/);
  assert.equal(read('outbox'), { kind: 'run', command: 'outbox', args: [], values: { state: 'pending', limit: '50', all: false } });
  assert.equal((read('outbox', 'list', '--state=dead') as { values: unknown }).values, { state: 'dead', limit: '50', all: false });
  assert.throws(() => read('outbox', '--state'), (e: unknown) => e instanceof UsageError && /--state needs a value/.test(e.message));
  assert.throws(() => read('retention', '--dry-run=yes'), (e: unknown) => e instanceof UsageError && /takes no value/.test(e.message));
  assert.throws(() => read('secrets'), (e: unknown) => e instanceof UsageError && /name a subcommand: rotate/.test(e.message));
  assert.is(read('archive', 'restore', 'a.parquet', 'b.parquet').kind, 'run');
  assert.throws(() => read('retention', 'set', 'north', '24', 'extra'), (e: unknown) => e instanceof UsageError && /unexpected argument "extra"/.test(e.message));
});

test('start --help names every component --only takes', () => {
  const help = COMMANDS.start.options.only.help;
  assert.equal(COMPONENTS.filter((c) => !new RegExp(`\\b${c}\\b`).test(help)), []);
});

test.after(() => rmSync(scratch, { recursive: true, force: true }));

test.run();
