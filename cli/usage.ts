// What a `faultline ...` command line asks for, checked against the command table (cli/command-table.ts)
// before any command is loaded: help and --version are answered here, without settings or a database; an
// unknown command, subcommand or option, an option in the wrong place or an argument too many is a UsageError
// (exit 2) naming it. Pure.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { commandSpec, optionsOf, type CommandName, type CommandSpec } from './command-table.js';
import { commandHelp, mainHelp } from './help.js';
import { FaultlineError } from '../errors/base.js';

/** The command line's one code: it asks for something the command table does not have (exit 2). */
export const USAGE_ERRORS = { USAGE: 'the command line names an unknown command, subcommand or option, or one in the wrong place' } as const;

export class UsageError extends FaultlineError<keyof typeof USAGE_ERRORS> {
  constructor(message: string) {
    super('USAGE', message, { retriable: false });
  }
}

export type Invocation =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'run'; command: CommandName; args: string[]; values: Record<string, string | boolean | undefined> };

/** The subcommand a first positional names (or the default one), null for a command without subcommands. */
function subcommandOf(name: string, spec: CommandSpec, first: string | undefined): string | null {
  if (!spec.subcommands) return null;
  const subs = Object.keys(spec.subcommands);
  if (first === undefined) {
    if (spec.defaultSubcommand) return spec.defaultSubcommand;
    throw new UsageError(`faultline ${name}: name a subcommand: ${subs.join(', ')} (faultline ${name} --help)`);
  }
  if (subs.includes(first)) return first;
  throw new UsageError(`faultline ${name}: unknown subcommand "${first}"; it has ${subs.join(', ')} (faultline ${name} --help)`);
}

/** How many positional arguments `<a> <b>` or `<file>...` allow. */
const maxArgs = (args: string | undefined) => (!args ? 0 : args.includes('...') ? Infinity : (args.match(/<[^>]*>/g) ?? []).length);

/** A given option that the command (or its subcommand) does not take, as the one-line error to print. */
function optionProblem(name: string, spec: CommandSpec, sub: string | null, option: string): string | null {
  const where = sub === null ? name : `${name} ${sub}`;
  if (optionsOf(spec, sub).some(([n]) => n === option)) return null;
  const elsewhere = spec.options[option]?.for;
  if (elsewhere) return `faultline ${where}: --${option} belongs to ${elsewhere.map((s) => `\`${name} ${s}\``).join(', ')} (faultline ${where} --help)`;
  return `faultline ${where}: unknown option ${option.length === 1 ? '-' : '--'}${option} (faultline ${where} --help shows the options)`;
}

export function readCommandLine(argv: readonly string[], version: string): Invocation {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') return { kind: 'help', text: mainHelp(version) };
  if (first === '--version' || first === '-V') return { kind: 'version' };
  if (first === 'help') return first === argv.at(-1) ? { kind: 'help', text: mainHelp(version) } : readCommandLine([...rest, '--help'], version);
  const spec = commandSpec(first);
  if (!spec) throw new UsageError(`faultline: unknown ${first.startsWith('-') ? 'option' : 'command'} "${first}" (faultline --help lists the commands)`);
  const name = first as CommandName;

  const beforeDashes = rest.indexOf('--') === -1 ? rest : rest.slice(0, rest.indexOf('--'));
  if (beforeDashes.includes('--help') || beforeDashes.includes('-h')) {
    const named = beforeDashes.find((a) => !a.startsWith('-'));
    const sub = spec.subcommands && named !== undefined && Object.hasOwn(spec.subcommands, named) ? named : null;
    return { kind: 'help', text: commandHelp(name, spec, sub) };
  }

  // Unknown options are found from the tokens (strict parsing would stop at the first with Node's own wording).
  const options = spec.options as NonNullable<ParseArgsConfig['options']>;
  const { tokens } = parseArgs({ args: [...rest], options, allowPositionals: true, strict: false, tokens: true });
  const positionals = tokens.filter((t) => t.kind === 'positional').map((t) => t.value);
  const sub = subcommandOf(name, spec, spec.subcommands ? positionals[0] : undefined);
  const where = sub === null ? name : `${name} ${sub}`;
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const problem = optionProblem(name, spec, sub, t.name);
    if (problem) throw new UsageError(problem);
    const o = spec.options[t.name]!;
    if (o.type === 'string' && t.value === undefined) throw new UsageError(`faultline ${where}: ${t.rawName} needs a value: ${t.rawName} ${o.value ?? 'VALUE'} (faultline ${where} --help)`);
    if (o.type === 'boolean' && t.inlineValue) throw new UsageError(`faultline ${where}: ${t.rawName} takes no value (faultline ${where} --help)`);
  }
  const args = sub === null ? spec.args : spec.subcommands?.[sub]?.args;
  const given = positionals.length - (spec.subcommands && positionals.length ? 1 : 0);
  if (given > maxArgs(args)) {
    throw new UsageError(`faultline ${where}: unexpected argument "${positionals.at(-1)}"${args ? `; it takes ${args}` : '; it takes none'} (faultline ${where} --help)`);
  }
  const { values } = parseArgs({ args: [...rest], options, allowPositionals: true, strict: true });
  return { kind: 'run', command: name, args: [...rest], values: { ...values } as Record<string, string | boolean | undefined> };
}

/**
 * A command line as docs write it (`outbox list --state dead`, `retention set <org> <months|keep>`,
 * `replay (--from <ISO> | --from-beginning)`), read against the table: the command, its subcommand (the default
 * one when none is named) and the problems found: a command, subcommand or --option that does not exist, or an
 * option of another subcommand. Placeholders and values are not checked.
 */
export function readDocCommandLine(line: string): { command: string; subcommand: string | null; problems: string[] } {
  const words = line.replace(/\\\|/g, '|').replace(/[[\]()|]/g, ' ').split(/\s+/).filter((w) => w && w !== '...');
  if (words[0] === 'help') words.shift();
  const [name = '', ...rest] = words;
  if (['--help', '-h', '--version', '-V', ''].includes(name)) return { command: '', subcommand: null, problems: [] };
  const spec = commandSpec(name);
  if (!spec) return { command: name, subcommand: null, problems: [`"${line}": no command "${name}"`] };
  const problems: string[] = [];
  let sub: string | null = null;
  if (spec.subcommands) {
    const named = rest[0] !== undefined && /^[a-z][a-z-]*$/.test(rest[0]) ? rest[0] : undefined;
    if (named !== undefined && Object.hasOwn(spec.subcommands, named)) sub = named;
    else if (named !== undefined) problems.push(`"${line}": ${name} has no subcommand "${named}"`);
    else sub = spec.defaultSubcommand ?? null;
  }
  for (const w of rest) {
    const m = /^--?([A-Za-z][\w-]*)/.exec(w);
    if (!m || m[1] === 'help' || m[1] === 'h') continue;
    const problem = sub === null && spec.subcommands ? (Object.hasOwn(spec.options, m[1]!) ? null : `unknown option --${m[1]}`) : optionProblem(name, spec, sub, m[1]!);
    if (problem) problems.push(`"${line}": ${problem}`);
  }
  return { command: name, subcommand: sub, problems };
}
