// Every `faultline` command, subcommand and option, with its defaults and exit codes: the one description from
// which `faultline --help` and `faultline <command> --help` are printed (cli/help.ts), against which the command
// line is checked before a command runs (cli/usage.ts), which each command's parseArgs reads its options from,
// and against which the README's CLI table, docs/ and the alert annotations are checked
// (test/docs/commands.test.ts). Pure data: printing help must open, start and change nothing.
//
// To add an option: one entry under the command's `options` (with `for` when only some subcommands take it).
// To add a subcommand: one entry under `subcommands`, and its branch in the command's file.
// To add a command: an entry here, its file under cli/commands/ and its line in cli/main.ts's RUNNERS.

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** The option may be given more than once (its value is then a list). */
  multiple?: boolean;
  /** What the command uses when the option is absent; a string option without one has a default described in `help`. */
  default?: string | boolean;
  /** The value's placeholder in help (`--limit N`). */
  value?: string;
  help: string;
  /** The subcommands that take it; absent: every one (or the command has none). */
  for?: readonly string[];
}

export interface SubcommandSpec {
  /** Positional arguments after the subcommand, as printed: `<id>`, `<file>...`. */
  args?: string;
  summary: string;
}

export interface CommandSpec {
  summary: string;
  /** Positional arguments of a command without subcommands. */
  args?: string;
  subcommands?: Readonly<Record<string, SubcommandSpec>>;
  /** The subcommand run when none is named (`faultline outbox` is `faultline outbox list`). */
  defaultSubcommand?: string;
  options: Readonly<Record<string, OptionSpec>>;
  /** Exit codes beyond 0, 1 and 2, which every command has. */
  exitCodes: Readonly<Record<number, string>>;
  /** A paragraph printed under the options. */
  notes?: string;
}

/** The exit codes every command shares, and the ones several do. */
export const EXIT = { ok: 0, failed: 1, usage: 2, schemaBehind: 4 } as const;
export const COMMON_EXIT_CODES: Readonly<Record<number, string>> = {
  [EXIT.ok]: 'done',
  [EXIT.failed]: 'failed; the message says why',
  [EXIT.usage]: 'usage error: an unknown command, subcommand or option, or an argument too many',
};
// docs/decisions.md#migrations-only-when-asked
const SCHEMA_BEHIND = { [EXIT.schemaBehind]: 'the database schema is older than this release needs: run `faultline migrate` first (nothing was changed)' };

const LIMIT = { type: 'string', default: '50', value: 'N', help: 'at most N rows, newest first', for: ['list'] } as const satisfies OptionSpec;

export const COMMANDS = {
  start: {
    summary: 'run the service: every component in one process, or the ones --only names',
    options: {
      only: {
        type: 'string', value: 'a,b',
        help: 'run only these, comma separated: bridge, pipeline (every stage, rejected included), api, delivery, alarms, dnp3, iec104, '
          + 'incidents, fleet, simulate, a pipeline stage (enrich, dedup, fault-compute, persist, notify, rejected) or, when '
          + 'PIPELINE_SPLIT cuts the chain, a segment such as enrich..fault-compute or persist..notify '
          + '(default: every component; simulate only on the embedded default)',
      },
    },
    exitCodes: {
      [EXIT.schemaBehind]: 'with DATABASE_URL: the database schema is older than this release needs and MIGRATE_ON_START is not 1: run `faultline migrate` first (nothing was started)',
    },
    notes: 'On the embedded default (no DATABASE_URL) start applies the migrations itself; with DATABASE_URL it applies them only when MIGRATE_ON_START=1. SIGINT or SIGTERM drains and exits 0 (1 past SHUTDOWN_TIMEOUT_MS). Without KAFKA_BROKERS (the in-process transport) --only refuses the bridge or part of the pipeline without the whole pipeline (exit 1): their records would have no reader in the process.',
  },
  migrate: {
    summary: 'apply the database migrations this release has and the database lacks (schemas/migrations), each once, in order',
    options: {},
    exitCodes: {},
    notes: 'The one command that changes the schema (with `start` on the embedded default): run it once, first, when upgrading.',
  },
  import: {
    summary: 'upsert organisations, power lines, groups, devices, users and integrations from a file; idempotent, all or nothing',
    args: '<file.json>',
    options: {
      'dry-run': { type: 'boolean', default: false, help: 'validate the file and say what would be created, updated and deleted per kind; write nothing' },
    },
    exitCodes: { ...SCHEMA_BEHIND },
    notes: 'The file\'s format: schemas/import.schema.json and docs/decisions.md#import-format. Deleting is `"deleted": true` on a device or user (a soft delete); a row the file leaves out stays as it is.',
  },
  simulate: {
    summary: 'a fleet of devices writing check-ins and faults to the spool inbox or SQS, with progress',
    options: {
      devices: { type: 'string', default: '100', value: 'N', help: 'devices in the fleet' },
      rate: { type: 'string', default: '100', value: 'R', help: 'check-ins per second' },
      count: { type: 'string', value: 'C', help: 'stop after C check-ins (default: run until --duration or Ctrl-C)' },
      duration: { type: 'string', value: 'S', help: 'stop after S seconds (default: run until --count or Ctrl-C)' },
      to: { type: 'string', value: 'spool|sqs', help: 'where to write (default: sqs when SQS_QUEUE_URL is set, else the spool inbox INBOX_DIR)' },
      events: { type: 'string', value: 'E', help: 'events in each check-in (default: mostly none, sometimes a fault)' },
      seed: { type: 'string', default: '1', value: 'S', help: 'seed of the fleet\'s random choices (the same seed, the same fleet)' },
      'imei-prefix': { type: 'string', value: 'DIGITS', help: 'first digits of the generated IMEIs (default: 35899)' },
      scenario: { type: 'string', value: 'NAMES', help: 'instead of the fleet: the fleet scenarios\' histories, ending now (comma-separated, or all: battery-drain, rssi-decline, carrier-outage, deenergised-lateral, never-commissioned, firmware-drift); import their reference data first (--scenario-import)' },
      'scenario-import': { type: 'string', value: 'FILE', help: 'with --scenario: write the scenarios\' reference data (devices, feeders, groups) as an import file to FILE for `faultline import`, and send nothing' },
      organization: { type: 'string', default: 'north', value: 'ID', help: 'with --scenario: the organisation the scenarios\' devices belong to' },
    },
    exitCodes: {},
  },
  replay: {
    summary: 'send the raw check-ins kept in fi.raw.v1 through the running pipeline again (needs Kafka and a running `faultline start`)',
    options: {
      from: { type: 'string', value: 'ISO', help: 'from the first record the broker appended at or after this ISO 8601 time' },
      'from-beginning': { type: 'boolean', default: false, help: 'the whole log Kafka still retains' },
      to: { type: 'string', value: 'ISO', help: 'up to (not including) the first record appended at or after this ISO 8601 time' },
      imei: { type: 'string', multiple: true, value: 'IMEI|file', help: 'only this device, or the devices a file names (one IMEI a line); may be repeated' },
      'dry-run': { type: 'boolean', default: false, help: 'count what would be re-sent, per day and device, and send nothing (needs no running pipeline)' },
      reprocess: { type: 'boolean', default: false, help: 'recompute the derived columns of rows already stored' },
      timeout: { type: 'string', default: '600', value: 'S', help: 'seconds to wait for the running pipeline to apply what was re-sent' },
    },
    exitCodes: { 3: 'the running pipeline had not caught up within --timeout (the re-sent records are applied later)', 130: 'interrupted (Ctrl-C); the replay\'s consumer group was removed' },
    notes: 'Give --from or --from-beginning. First says how far back fi.raw.v1 reaches. Opens no database.',
  },
  rejected: {
    summary: 'messages the pipeline refused, with their reasons',
    subcommands: {
      list: { summary: 'the refused messages, newest first, with stage, code and reason' },
      resubmit: { args: '[<id>]', summary: 'send refused messages through the pipeline again (Kafka): one by id, or every one --code (and --since) select; says how many' },
    },
    defaultSubcommand: 'list',
    options: {
      limit: LIMIT,
      code: { type: 'string', value: 'CODE', help: 'only messages refused with this code (e.g. PROCESSING_FAILED, UNKNOWN_DEVICE)' },
      since: { type: 'string', value: 'T', help: 'only messages refused since T: an ISO 8601 time or an age such as 30m, 12h, 7d' },
      stack: { type: 'boolean', default: false, help: 'show the stack of a PROCESSING_FAILED message', for: ['list'] },
    },
    exitCodes: { ...SCHEMA_BEHIND },
  },
  unregistered: {
    summary: 'IMEIs that checked in without being registered, with first and last check-in',
    options: {},
    exitCodes: { ...SCHEMA_BEHIND },
  },
  secrets: {
    summary: 'integration credentials stored encrypted',
    subcommands: {
      rotate: { summary: 're-encrypt every stored credential under the current key (the first of FAULTLINE_SECRET_KEYS)' },
    },
    options: {},
    exitCodes: { ...SCHEMA_BEHIND },
  },
  'integration-keys': {
    summary: 'integration keys (the machine credentials the SCADA integration outputs are read with), issued by the operator',
    subcommands: {
      create: { args: '<org> <name>', summary: 'a new key of an organisation, printed once (only its hash is kept)' },
      rotate: { args: '<org> <id>', summary: 'a new secret for a key that is not revoked, printed once; the old one stops at once' },
    },
    options: {},
    exitCodes: { ...SCHEMA_BEHIND },
    notes: 'The one way to issue a key for an organisation that masks fault details (MaskFaultDetails): a key reads them unmasked, so its admins may list and revoke keys in the API but not create or rotate them.',
  },
  outbox: {
    summary: 'MultiSpeak notifications still to deliver, given up, or delivered',
    subcommands: {
      list: { summary: 'outbox rows in one state' },
      retry: { args: '<id>', summary: 'send a given-up notification again (the id `outbox list --state dead` shows)' },
      resync: { args: '<integration>', summary: 'queue every device\'s current state for the OMS' },
    },
    defaultSubcommand: 'list',
    options: {
      state: { type: 'string', default: 'pending', value: 'pending|dead|delivered|all', help: 'which rows', for: ['list'] },
      integration: { type: 'string', value: 'ID', help: 'only this integration\'s rows (default: every integration)', for: ['list'] },
      limit: LIMIT,
      all: { type: 'boolean', default: false, help: 'every device, not only those whose current state the OMS lacks', for: ['resync'] },
    },
    exitCodes: { ...SCHEMA_BEHIND },
  },
  alarms: {
    summary: 'alarm messages (e-mail, SMS, webhooks) still to deliver, given up, or delivered',
    subcommands: {
      list: { summary: 'alarm messages in one state' },
      retry: { args: '<id>', summary: 'send a given-up alarm message again (the id `alarms list` shows)' },
    },
    defaultSubcommand: 'list',
    options: {
      state: { type: 'string', default: 'dead', value: 'pending|dead|delivered|all', help: 'which messages', for: ['list'] },
      org: { type: 'string', value: 'ID', help: 'only this organisation\'s messages (default: every organisation)', for: ['list'] },
      limit: LIMIT,
    },
    exitCodes: { ...SCHEMA_BEHIND },
  },
  'test-fault': {
    summary: 'a synthetic fault for a registered device through the configured queue to the DNP3 master and the OMS, cleared after a while; prints its delivery timeline',
    args: '<imei>',
    options: {
      'clear-after': { type: 'string', value: 'S', help: 'seconds before its clearing check-in, 5 to 3600 (default: TEST_FAULT_CLEAR_SECONDS, 120)' },
      timeout: { type: 'string', default: '600', value: 'S', help: 'seconds to follow the timeline' },
    },
    exitCodes: { 3: 'not complete within --timeout (GET /api/test-faults/<id> shows it later)', ...SCHEMA_BEHIND },
  },
  retention: {
    summary: 'how long each organisation keeps its data, and the run that archives and removes the rest',
    subcommands: {
      run: { summary: 'archive, verify and remove the months each organisation no longer keeps, printing each step' },
      set: { args: '<org> <months|keep>', summary: 'how many months an organisation keeps (keep: everything, the default)' },
      status: { summary: 'retention per organisation and the month partitions stored' },
    },
    defaultSubcommand: 'run',
    options: {
      'dry-run': { type: 'boolean', default: false, help: 'only say what it would do; write and remove nothing', for: ['run'] },
    },
    exitCodes: { [EXIT.failed]: 'failed, or a step of the run failed (the others went ahead)', ...SCHEMA_BEHIND },
  },
  archive: {
    summary: 'the Parquet files retention wrote',
    subcommands: {
      list: { summary: 'what retention archived, where' },
      restore: { args: '<file>...', summary: 'load archived months back into their tables (rows already stored are kept)' },
    },
    defaultSubcommand: 'list',
    options: {},
    exitCodes: { ...SCHEMA_BEHIND },
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

export const commandNames = (): CommandName[] => Object.keys(COMMANDS) as CommandName[];

export function commandSpec(name: string): CommandSpec | null {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name as CommandName] : null;
}

/** The options a subcommand takes (or the command's, when it has none). */
export function optionsOf(spec: CommandSpec, subcommand: string | null): [string, OptionSpec][] {
  return Object.entries(spec.options).filter(([, o]) => !o.for || (subcommand !== null && o.for.includes(subcommand)));
}

/** Every exit code of a command (or one subcommand), the common ones first. */
export function exitCodesOf(spec: CommandSpec): [number, string][] {
  return Object.entries({ ...COMMON_EXIT_CODES, ...spec.exitCodes }).map(([code, text]) => [Number(code), text] as [number, string]).sort((a, b) => a[0] - b[0]);
}
