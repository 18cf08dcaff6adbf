// Every `faultline ...` command line the repository tells a reader to run exists: in the README (its CLI
// table covers every command and subcommand of cli/command-table.ts), in docs/*.md and in the alert
// annotations of ops/prometheus/*.yml (an operator paged at night runs what the alert says). Checked against
// the command table: command, subcommand and every --option, which must belong to that subcommand.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COMMANDS, commandNames, type CommandSpec } from '../../cli/command-table.js';
import { readDocCommandLine } from '../../cli/usage.js';

const root = new URL('../..', import.meta.url).pathname;
const text = (f: string) => readFileSync(join(root, f), 'utf8');
const markdown = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const rules = readdirSync(join(root, 'ops/prometheus')).filter((f) => /\.ya?ml$/.test(f)).map((f) => `ops/prometheus/${f}`);

/** `faultline ...` in backticks (across a line break too); `faultline <command>` and `faultline-<id>` are not commands. */
function backticked(source: string): string[] {
  return [...source.matchAll(/`(?:npx )?faultline\s+([^`]+)`/g)].map((m) => m[1]!.replace(/\s+/g, ' ').trim()).filter((l) => !l.startsWith('<'));
}

/** The command lines of the alert annotations, backticked or not ("... (faultline outbox list --state dead)"). */
function annotationCommands(source: string): string[] {
  const lines: string[] = [];
  for (const line of source.split('\n').filter((l) => /^\s*(summary|description|runbook\w*):/.test(l))) {
    lines.push(...backticked(line));
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\bfaultline\s+([a-z][\w-]*[^)"`;]*)/g)) {
      const first = m[1]!.split(/\s+/)[0]!;
      if (Object.hasOwn(COMMANDS, first) || /\s-/.test(m[1]!)) lines.push(m[1]!.trim());
    }
  }
  return lines;
}

const problemsOf = (lines: string[], where: string) => lines.flatMap((l) => readDocCommandLine(l).problems.map((p) => `${where}: ${p}`));

test('the reader finds command lines and their problems (the test can fail)', () => {
  assert.equal(annotationCommands('          summary: "given up on (faultline outbox list --dead)"'), ['outbox list --dead']);
  assert.equal(readDocCommandLine('outbox list --dead').problems.length, 1);
  assert.equal(readDocCommandLine('outbox retry --all').problems.length, 1, '--all is resync\'s');
  assert.equal(readDocCommandLine('outbox frob').problems.length, 1);
  assert.equal(readDocCommandLine('frob').problems.length, 1);
  assert.equal(readDocCommandLine('replay (--from <ISO time> \\| --from-beginning) [--reprocess]').problems, []);
  assert.equal(readDocCommandLine('retention set <org> <months\\|keep>'), { command: 'retention', subcommand: 'set', problems: [] });
  assert.equal(readDocCommandLine('outbox [list]').subcommand, 'list');
  assert.equal(backticked('run `faultline\n  archive list` or `faultline <command>` or `faultline-<id>`'), ['archive list']);
});

test('every alert annotation names a command that exists', () => {
  const found = rules.flatMap((f) => annotationCommands(text(f)).map((l) => [f, l] as const));
  assert.ok(found.length > 0, 'the rules name at least one command');
  assert.equal(found.flatMap(([f, l]) => problemsOf([l], f)), []);
});

test('every command line in the README and docs/*.md exists', () => {
  const found = markdown.flatMap((f) => problemsOf(backticked(text(f)), f));
  assert.equal(found, []);
});

test('the README\'s CLI table: every row exists, and every command and subcommand has a row', () => {
  const readme = text('README.md');
  const heading = /^#{2,3} .*(command line|CLI)\b.*$/im.exec(readme);
  assert.ok(heading, 'the README has a section whose heading names the command line (or CLI)');
  const section = readme.slice(heading.index + heading[0].length).split(/\n#{1,3} /)[0]!;
  const cells = section.split('\n').filter((l) => l.startsWith('| `')).map((l) => l.split(/(?<!\\)\|/)[1]!);
  assert.ok(cells.length > 0, 'the section has a table');
  const usages = cells.flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/^(npx )?faultline /, '')));
  assert.equal(usages.flatMap((u) => readDocCommandLine(u).problems), []);
  const covered = new Set(usages.map((u) => readDocCommandLine(u)).map((r) => `${r.command} ${r.subcommand ?? ''}`.trim()));
  const missing: string[] = [];
  for (const name of commandNames()) {
    const spec: CommandSpec = COMMANDS[name];
    for (const sub of spec.subcommands ? Object.keys(spec.subcommands) : ['']) if (!covered.has(`${name} ${sub}`.trim())) missing.push(`${name} ${sub}`.trim());
  }
  assert.equal(missing, [], 'each of these needs a row in the README\'s CLI table');
});

test.run();
