// `faultline replay (--from <ISO time> | --from-beginning) [--to <ISO time>] [--imei <IMEI | file>]... [--dry-run]
// [--reprocess] [--timeout <seconds>]`: see stages/replay.ts and docs/replay.md. Needs Kafka and, unless
// --dry-run, a running pipeline (`faultline start`) to carry the re-sent records through every stage; says
// so at once when there is none. First says how far back fi.raw.v1 reaches (stages/replay-reach.ts).
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { COMMANDS } from '../command-table.js';
import { replay, ReplayError, requireRunningPipeline, type ReplayProgress, type ReplayResult } from '../../stages/replay.js';
import { replayReach } from '../../stages/replay-reach.js';
import { transportFromSettings } from '../../stages/runtime/transport/from-settings.js';
import { kafkaNames } from '../../stages/runtime/transport/names.js';
import { segmentLabel, segmentsOf } from '../../stages/shape.js';
import { loadSettings } from '../../config/settings.js';

const say = (line: string) => process.stdout.write(`replay: ${line}\n`);
const IMEI = /^[0-9]{1,20}$/;
const time = (ms: number) => new Date(ms).toISOString();

/** `--imei` values: an IMEI (digits), or a file of them (one a line; blank lines and `#` comments skipped). */
export function imeisOf(values: readonly string[]): Set<string> {
  const imeis = new Set<string>();
  for (const value of values) {
    if (IMEI.test(value)) { imeis.add(value); continue; }
    if (!existsSync(value)) throw new Error(`replay --imei: "${value}" is neither an IMEI (digits) nor a file of IMEIs`);
    readFileSync(value, 'utf8').split('\n').forEach((line, i) => {
      const text = line.replace(/#.*/, '').trim();
      if (text === '') return;
      if (!IMEI.test(text)) throw new Error(`replay --imei ${value}, line ${i + 1}: "${text}" is not an IMEI (digits)`);
      imeis.add(text);
    });
  }
  if (values.length && imeis.size === 0) throw new Error('replay --imei: the file names no IMEI');
  return imeis;
}

function instant(option: string, text: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new Error(`replay ${option}: "${text}" is not an ISO 8601 time`);
  return ms;
}

function printPreview(result: ReplayResult): void {
  for (const d of result.preview?.days ?? []) say(`  ${d.day}: ${d.records} records from ${d.devices} device${d.devices === 1 ? '' : 's'}`);
  for (const d of result.preview?.devices ?? []) say(`  ${d.imei}: ${d.records} records, appended ${time(d.first)} .. ${time(d.last)}`);
  say(`dry run: ${result.resent} of ${result.total} records would be sent through the running pipeline again` +
    `${result.copiesSkipped ? `, ${result.copiesSkipped} skipped (copies an earlier replay made)` : ''}${result.otherDevices ? `, ${result.otherDevices} of other devices left out` : ''}; nothing was sent`);
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: COMMANDS.replay.options });
  if (!values.from && !values['from-beginning']) throw new Error('replay: give --from <ISO 8601 time> or --from-beginning');
  const from = values['from-beginning'] ? 0 : instant('--from', values.from!);
  const to = values.to === undefined ? undefined : instant('--to', values.to);
  if (to !== undefined && to <= from) throw new Error(`replay --to: ${values.to} is not after the start of the range`);
  const imeis = values.imei?.length ? imeisOf(values.imei) : undefined;
  const dryRun = values['dry-run'];
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
    // Refused before anything is read when nothing would apply the copies.
    if (!dryRun) await requireRunningPipeline(transport, settings.pipelineSplit);
    const reach = await replayReach(transport);
    const kept = reach.retentionMs === null ? 'for ever' : `for ${+(reach.retentionMs / 86_400_000).toFixed(2)} days (retention.ms; RAW_RETENTION_DAYS)`;
    say(reach.earliest === null
      ? `fi.raw.v1 keeps check-ins ${kept}; it holds none now: nothing to replay`
      : `fi.raw.v1 keeps check-ins ${kept}; the earliest it holds was appended ${time(reach.earliest)}: a replay reaches back to there`);
    if (reach.earliest !== null && from > 0 && from < reach.earliest) say(`--from ${time(from)} is earlier: the replay starts at ${time(reach.earliest)}`);
    say(`${dryRun ? 'dry run: counting' : 're-reading'} fi.raw.v1 from ${from === 0 ? 'the beginning of the retained log' : time(from)}` +
      `${to === undefined ? '' : ` to ${time(to)}`} (broker append time)${imeis ? ` for ${imeis.size} device${imeis.size === 1 ? '' : 's'}` : ''}` +
      `${values.reprocess && !dryRun ? ', recomputing derived columns' : ''}`);
    let last = 0;
    const result = await replay({
      transport, from, ...(to === undefined ? {} : { to }), ...(imeis ? { imeis } : {}), dryRun, reprocess: values.reprocess, split: settings.pipelineSplit,
      applyTimeoutMs: timeoutS * 1000, signal: interrupt.signal,
      onProgress: (p: ReplayProgress) => {
        if (Date.now() - last < 1000) return;
        last = Date.now();
        say(p.phase === 'reading' ? `read ${p.reread}/${p.total} records` : `applying: the running pipeline's group ${p.segment} is ${p.behind} records behind`);
      },
    });
    if (dryRun) {
      printPreview(result);
      return;
    }
    const segments = segmentsOf(settings.pipelineSplit).map(segmentLabel).join(', ');
    say(`re-read ${result.reread} of ${result.total} records: ${result.resent} sent through the running pipeline again` +
      `${result.copiesSkipped ? `, ${result.copiesSkipped} skipped (copies an earlier replay made)` : ''}${result.otherDevices ? `, ${result.otherDevices} of other devices left out` : ''}`);
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
