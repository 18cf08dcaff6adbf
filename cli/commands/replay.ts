// `faultline replay (--from <ISO time> | --from-beginning) [--reprocess] [--timeout <seconds>]`: see
// stages/replay.ts and README "Replay". Needs Kafka and a running pipeline (`faultline start`) to carry the
// re-sent records through every stage; says so at once when there is none.
import { parseArgs } from 'node:util';
import { COMMANDS } from '../command-table.js';
import { replay, ReplayError, type ReplayProgress } from '../../stages/replay.js';
import { transportFromSettings } from '../../stages/runtime/transport/from-settings.js';
import { kafkaNames } from '../../stages/runtime/transport/names.js';
import { segmentLabel, segmentsOf } from '../../stages/shape.js';
import { loadSettings } from '../../config/settings.js';

const say = (line: string) => process.stdout.write(`replay: ${line}\n`);

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: COMMANDS.replay.options });
  if (!values.from && !values['from-beginning']) throw new Error('replay: give --from <ISO 8601 time> or --from-beginning');
  const from = values['from-beginning'] ? 0 : Date.parse(values.from!);
  if (Number.isNaN(from)) throw new Error(`replay --from: "${values.from}" is not an ISO 8601 time`);
  const timeoutS = Number(values.timeout);
  if (!(timeoutS > 0)) throw new Error(`replay --timeout: "${values.timeout}" is not a number of seconds`);
  // No database: the running pipeline does all the work; replay only reads and re-sends Kafka records.
  const settings = loadSettings();
  if (!settings.kafkaBrokers) {
    throw new Error('replay needs Kafka (KAFKA_BROKERS): the in-process transport keeps no log to re-read');
  }
  const transport = await transportFromSettings(settings, 'faultline-replay');
  // Ctrl-C stops the replay cleanly: its consumer group is removed before the process ends.
  const interrupt = new AbortController();
  const onSigint = () => { say('stopping (Ctrl-C)...'); interrupt.abort(); };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  try {
    say(`re-reading fi.raw.v1 from ${from === 0 ? 'the beginning of the retained log' : new Date(from).toISOString()} (broker append time)${values.reprocess ? ', recomputing derived columns' : ''}`);
    let last = 0;
    const result = await replay({
      transport, from, reprocess: values.reprocess, split: settings.pipelineSplit,
      applyTimeoutMs: timeoutS * 1000, signal: interrupt.signal,
      onProgress: (p: ReplayProgress) => {
        if (Date.now() - last < 1000) return;
        last = Date.now();
        say(p.phase === 'reading' ? `read ${p.reread}/${p.total} records` : `applying: the running pipeline's group ${p.segment} is ${p.behind} records behind`);
      },
    });
    const segments = segmentsOf(settings.pipelineSplit).map(segmentLabel).join(', ');
    say(`re-read ${result.reread} of ${result.total} records: ${result.resent} sent through the running pipeline again${result.copiesSkipped ? `, ${result.copiesSkipped} skipped (copies an earlier replay made)` : ''}`);
    if (result.total === 0) say('nothing to replay in that range');
    else if (result.caughtUp) say(`applied ${result.applied} of ${result.resent}: the running pipeline (${segments}) has caught up`);
    else say(`the running pipeline has not caught up after ${timeoutS} s; the re-sent records are applied in the background (watch faultline_stage_records_total on /metrics)`);
    if (result.total > 0) say(`consumer group ${kafkaNames(settings.kafkaNamespace).group(result.group)} removed`);
    if (!result.caughtUp) process.exitCode = 3;
  } catch (err) {
    if (err instanceof ReplayError && err.code === 'INTERRUPTED') {
      say(`${err.message}; the replay's consumer group was removed`);
      process.exitCode = 130;
      return;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    await transport.close();
  }
}
