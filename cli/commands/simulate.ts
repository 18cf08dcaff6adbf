// `faultline simulate`: a fleet of devices writing check-ins and faults to the spool inbox or SQS, with
// progress. Defaults follow the settings: SQS when SQS_QUEUE_URL is set, else the spool inbox.
import { parseArgs } from 'node:util';
import { loadSettings } from '../../config/settings.js';
import { COMMANDS } from '../command-table.js';
import { writeFileSync } from 'node:fs';
import { fleetScenarios, scenarioImportFile, scenarioNames, scenarioOutgoing, sendMessages, simulate, type SimulateOptions } from '../../simulator/index.js';

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: COMMANDS.simulate.options,
  });
  const num = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isFinite(n) || n < 0) throw new Error(`simulate --${name}: "${text}" is not a non-negative number`);
    return n;
  };
  const { queue, inboxDir } = loadSettings();
  const to = (values.to ?? queue.kind) as 'sqs' | 'spool';
  if (to !== 'sqs' && to !== 'spool') throw new Error(`simulate --to: "${values.to}" is neither sqs nor spool`);
  if (values.scenario !== undefined) {
    await runScenarios(values.scenario, values['scenario-import'], values.organization ?? 'north', { to, inboxDir, ...(queue.kind === 'sqs' ? { queueUrl: queue.queueUrl, ...(queue.endpoint ? { endpoint: queue.endpoint } : {}), ...(queue.region ? { region: queue.region } : {}) } : {}) });
    return;
  }
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const count = num('count', values.count);
  const duration = num('duration', values.duration);
  const events = num('events', values.events);
  const result = await simulate({
    devices: num('devices', values.devices)!, rate: num('rate', values.rate)!, to, signal: controller.signal, seed: num('seed', values.seed)!,
    ...(count !== undefined ? { count } : {}), ...(duration !== undefined ? { durationSec: duration } : {}),
    ...(events !== undefined ? { eventsPerCheckIn: events } : {}), ...(values['imei-prefix'] ? { imeiPrefix: values['imei-prefix'] } : {}),
    inboxDir,
    ...(queue.kind === 'sqs' ? { queueUrl: queue.queueUrl, ...(queue.endpoint ? { endpoint: queue.endpoint } : {}), ...(queue.region ? { region: queue.region } : {}) } : {}),
  });
  process.stdout.write(`simulate: done, ${JSON.stringify(result)}\n`);
}

/**
 * The fleet scenarios (simulator/fleet-scenarios/, docs/decisions.md#fleet-scenarios): their reference data to an
 * import file, or their histories (ending now) to the queue. Their IMEIs and names do not depend on the time, so
 * the file written first matches the messages sent later.
 */
async function runScenarios(list: string, importFile: string | undefined, organizationId: string, sink: Pick<SimulateOptions, 'to' | 'inboxDir' | 'queueUrl' | 'endpoint' | 'region'>): Promise<void> {
  const endMs = Math.floor(Date.now() / 1000) * 1000;
  const scenarios = fleetScenarios({ endMs, organizationId, names: scenarioNames(list) });
  if (importFile) {
    writeFileSync(importFile, `${JSON.stringify(scenarioImportFile(scenarios), null, 2)}\n`);
    process.stdout.write(`simulate: wrote the reference data of ${scenarios.map((s) => s.name).join(', ')} to ${importFile}; run \`faultline import ${importFile}\`, then simulate --scenario ${list} without --scenario-import\n`);
    return;
  }
  const sent = await sendMessages(sink, scenarioOutgoing(scenarios, String(endMs)));
  for (const s of scenarios) process.stdout.write(`simulate: ${s.name}: ${s.summary}\n`);
  process.stdout.write(`simulate: done, sent ${sent} messages of ${scenarios.length} scenarios (histories ending ${new Date(endMs).toISOString()})\n`);
}
