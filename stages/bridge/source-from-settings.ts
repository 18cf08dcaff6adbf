// Which source a process runs, from its settings (docs/decisions.md#embedded-default): SQS when SQS_QUEUE_URL is
// set, otherwise the spool directory INBOX_DIR (default $DATA_DIR/inbox). Both are read in config/settings.ts.
import type { BridgeSettings, QueueConfig } from '../../config/settings.js';
import type { Transport } from '../runtime/transport/transport.js';
import type { Log, Source } from './source.js';
import { spoolSource } from './spool-source.js';
import { sqsSource } from './sqs-source.js';

/**
 * SQS_POLLERS unset, in-process: a poller's send waits for the whole pipeline (a durable send,
 * docs/pipeline.md#the-in-process-transport) before it receives again, so more pollers keep the chain's batches full.
 */
const IN_PROCESS_POLLERS = 32;

export interface SourceFromSettingsOptions {
  transport: Transport;
  /** Settings.queue: the queue to read. */
  queue: QueueConfig;
  /** Settings.bridge: MAX_MESSAGE_BYTES, SQS_POLLERS, SQS_WAIT_SECONDS (defaults: README "Configuration"). */
  bridge: BridgeSettings;
  log?: Log;
}

export function sourceFromSettings({ transport, queue, bridge, log }: SourceFromSettingsOptions): { kind: 'sqs' | 'spool'; source: Source } {
  const { maxBodyBytes, sqsWaitSeconds: wait } = bridge;
  const pollers = bridge.sqsPollers ?? (transport.kind === 'memory' ? IN_PROCESS_POLLERS : null);
  const common = { transport, ...(log ? { log } : {}), ...(maxBodyBytes === null ? {} : { maxBodyBytes }) };
  if (queue.kind === 'sqs') {
    return {
      kind: 'sqs',
      source: sqsSource({
        ...common,
        queueUrl: queue.queueUrl,
        ...(queue.endpoint ? { endpoint: queue.endpoint } : {}),
        ...(queue.region ? { region: queue.region } : {}),
        ...(pollers === null ? {} : { pollers }),
        ...(wait === null ? {} : { waitTimeSeconds: wait }),
      }),
    };
  }
  return { kind: 'spool', source: spoolSource({ ...common, dir: queue.dir }) };
}
