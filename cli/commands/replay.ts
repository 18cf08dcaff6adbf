// `faultline replay [--from <ISO time> | --from-beginning] [--reprocess]`: see stages/replay.ts. Needs Kafka
// and a running pipeline (`faultline start`) to carry the replayed records through the later stages.
import { parseArgs } from 'node:util';
import { replay } from '../../stages/replay.js';
import { transportFromSettings } from '../../stages/runtime/transport/from-settings.js';
import { openRuntime } from '../runtime.js';

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' }, 'from-beginning': { type: 'boolean', default: false }, reprocess: { type: 'boolean', default: false } } });
  if (!values.from && !values['from-beginning']) throw new Error('replay: give --from <ISO 8601 time> or --from-beginning');
  const from = values['from-beginning'] ? 0 : Date.parse(values.from!);
  if (Number.isNaN(from)) throw new Error(`replay --from: "${values.from}" is not an ISO 8601 time`);
  const runtime = await openRuntime();
  if (!runtime.settings.kafkaBrokers) {
    await runtime.close();
    throw new Error('replay needs Kafka (KAFKA_BROKERS): the in-process transport keeps no log to re-read');
  }
  const transport = await transportFromSettings(runtime.settings, 'faultline-replay');
  try {
    let last = 0;
    const { records } = await replay({
      transport, pool: runtime.pool, modelMap: runtime.settings.modelMap, from, reprocess: values.reprocess,
      onProgress: (done, total) => {
        if (Date.now() - last > 1000) { process.stdout.write(`replay: ${done}/${total} records\n`); last = Date.now(); }
      },
    });
    process.stdout.write(`replay: done, ${records} records re-read from fi.raw.v1\n`);
  } finally {
    await transport.close();
    await runtime.close();
  }
}
