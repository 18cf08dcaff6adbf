// `faultline --help` and `faultline <command> [subcommand] --help`, printed from the command table
// (cli/command-table.ts) alone. Pure: no settings, no database, no file written.
import { COMMANDS, EXIT, COMMON_EXIT_CODES, commandNames, exitCodesOf, optionsOf, type CommandSpec, type OptionSpec } from './command-table.js';

const WIDTH = 100;

/** `text` folded to WIDTH columns, every line after the first indented by `indent`. */
function wrap(text: string, indent: number, firstWidth = WIDTH - indent): string {
  const lines: string[] = [];
  let line = '';
  let width = firstWidth;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) { lines.push(line); line = word; width = WIDTH - indent; } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** Two columns: the term, then its text folded beside it. */
function rows(entries: [string, string][], indent = 2): string {
  const column = Math.min(36, Math.max(...entries.map(([term]) => term.length)) + 2);
  return entries.map(([term, text]) => {
    const head = `${' '.repeat(indent)}${term}`;
    return head.length + 1 > indent + column
      ? `${head}\n${' '.repeat(indent + column)}${wrap(text, indent + column)}`
      : `${head.padEnd(indent + column)}${wrap(text, indent + column)}`;
  }).join('\n');
}

const optionTerm = (name: string, o: OptionSpec) => `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;

function optionText(o: OptionSpec): string {
  if (o.type === 'boolean') return `${o.help} (default: off)`;
  return o.default === undefined ? o.help : `${o.help} (default: ${o.default})`;
}

/** `outbox [list]`, `outbox retry <id>`, `import <file.json>`: how a command or subcommand is written. */
export function synopsis(name: string, spec: CommandSpec, subcommand: string | null, withOptions = false): string {
  const words = [name];
  if (subcommand !== null) words.push(spec.defaultSubcommand === subcommand ? `[${subcommand}]` : subcommand);
  const args = subcommand !== null ? spec.subcommands?.[subcommand]?.args : spec.args;
  if (args) words.push(args);
  if (withOptions) for (const [n, o] of optionsOf(spec, subcommand)) words.push(`[${optionTerm(n, o)}]`);
  return words.join(' ');
}

const subcommandsOf = (spec: CommandSpec): (string | null)[] => (spec.subcommands ? Object.keys(spec.subcommands) : [null]);

function exitCodes(spec: CommandSpec): string {
  return `Exit codes:\n${rows(exitCodesOf(spec).map(([code, text]) => [String(code), text]))}`;
}

/** `faultline --help`: every command and subcommand in one line each. */
export function mainHelp(version: string): string {
  const entries: [string, string][] = [];
  for (const name of commandNames()) {
    const spec: CommandSpec = COMMANDS[name];
    for (const sub of subcommandsOf(spec)) {
      entries.push([synopsis(name, spec, sub), sub === null ? spec.summary : spec.subcommands![sub]!.summary]);
    }
  }
  const common = Object.entries(COMMON_EXIT_CODES).map(([code, text]) => `${code} ${text.split(/[:;]/)[0]}`).join(', ');
  return `faultline ${version}: data service for utility line fault indicators

Usage: faultline <command> [subcommand] [arguments] [options]
       faultline <command> [subcommand] --help   its options with their defaults, and its exit codes
       faultline --version

Commands:
${rows(entries)}

${wrap(`Exit codes: ${common}, ${EXIT.schemaBehind} the database schema is older than this release needs (run \`faultline migrate\`); some commands have more (their --help lists them).`, 0)}
`;
}

/** `faultline <command> --help`, or one subcommand's. */
export function commandHelp(name: string, spec: CommandSpec, subcommand: string | null): string {
  const parts: string[] = [];
  const subs = subcommand !== null ? [subcommand] : subcommandsOf(spec);
  const summary = subcommand !== null ? spec.subcommands![subcommand]!.summary : spec.summary;
  parts.push(`faultline ${subcommand !== null ? `${name} ${subcommand}` : name}: ${wrap(summary, 2, WIDTH - name.length - 14)}`);
  parts.push(`Usage:\n${subs.map((s) => `  ${wrap(`faultline ${synopsis(name, spec, s, true)}`, 4)}`).join('\n')}`);
  if (subcommand === null && spec.subcommands) {
    parts.push(`Subcommands:\n${rows(Object.entries(spec.subcommands).map(([s, sub]) => [
      `${s}${sub.args ? ` ${sub.args}` : ''}${spec.defaultSubcommand === s ? ' (the default)' : ''}`, sub.summary,
    ]))}`);
  }
  const options = Object.entries(spec.options).filter(([, o]) => subcommand === null || !o.for || o.for.includes(subcommand));
  if (options.length) {
    parts.push(`Options:\n${rows(options.map(([n, o]) => [
      optionTerm(n, o), `${optionText(o)}${subcommand === null && o.for && spec.subcommands ? ` [${o.for.join(', ')}]` : ''}`,
    ]))}`);
  }
  if (spec.notes) parts.push(wrap(spec.notes, 0));
  parts.push(exitCodes(spec));
  return `${parts.join('\n\n')}\n`;
}
