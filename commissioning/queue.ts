// Where a test fault's synthetic check-ins go: the deployment's own queue (SQS in production, the spool inbox
// of the embedded default), written the way the simulator writes, so they travel the path real check-ins do.
import type { QueueConfig } from '../config/settings.js';
import { spoolSink } from '../simulator/spool-sink.js';
import { sqsSink } from '../simulator/sqs-sink.js';
import type { Sink } from '../simulator/sink.js';

export interface TestFaultQueue {
  /** Human description for logs and answers ("SQS <url>", "spool inbox <dir>"). */
  description: string;
  /** Resolves when the queue holds the message. */
  send(name: string, body: string): Promise<void>;
  close(): Promise<void>;
}

export function openQueue(config: QueueConfig): TestFaultQueue {
  let sink: Promise<Sink> | null = null;
  const get = () => (sink ??= config.kind === 'sqs'
    ? Promise.resolve(sqsSink({ queueUrl: config.queueUrl, ...(config.endpoint ? { endpoint: config.endpoint } : {}), ...(config.region ? { region: config.region } : {}) }))
    : spoolSink({ dir: config.dir }));
  return {
    description: config.kind === 'sqs' ? `SQS ${config.queueUrl}` : `spool inbox ${config.dir}`,
    async send(name, body) { await (await get()).write([{ name, body }]); },
    async close() { if (sink) await (await sink).close(); },
  };
}
