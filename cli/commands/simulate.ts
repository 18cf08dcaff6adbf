// `faultline simulate`: a fleet of devices writing check-ins and faults to the spool inbox or SQS, with
// progress. Defaults follow the settings: SQS when SQS_QUEUE_URL is set, else the spool inbox.
import { parseArgs } from 'node:util';
import { loadSettings } from '../../config/settings.js';
import { COMMANDS } from '../command-table.js';
import { simulate } from '../../simulator/index.js';

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
