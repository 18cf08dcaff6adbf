// Which source a process runs, from its environment (docs/decisions.md#embedded-default): SQS when SQS_QUEUE_URL is
// set, otherwise the spool directory INBOX_DIR (default .data/inbox). Read once at start.
import type { Transport } from '../runtime/transport/transport.js';
import type { Log, Source } from './source.js';
import { spoolSource } from './spool-source.js';
import { sqsSource } from './sqs-source.js';

export const DEFAULT_INBOX_DIR = '.data/inbox';

/** The queue a deployment reads, from its environment: what the bridge reads and what a test fault writes to. */
export type QueueConfig =
  | { kind: 'sqs'; queueUrl: string; endpoint?: string; region?: string }
  | { kind: 'spool'; dir: string };

/** SQS when SQS_QUEUE_URL is set, else the spool directory INBOX_DIR (default `inboxDefault`). */
export function queueFromEnv(env: NodeJS.ProcessEnv = process.env, inboxDefault = DEFAULT_INBOX_DIR): QueueConfig {
  if (env.SQS_QUEUE_URL) {
    return { kind: 'sqs', queueUrl: env.SQS_QUEUE_URL, ...(env.SQS_ENDPOINT ? { endpoint: env.SQS_ENDPOINT } : {}), ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}) };
  }
  return { kind: 'spool', dir: env.INBOX_DIR || inboxDefault };
}

export interface SourceFromEnvOptions {
  transport: Transport;
  env?: NodeJS.ProcessEnv;
  log?: Log;
}

/**
 * Variables: SQS_QUEUE_URL, SQS_ENDPOINT, AWS_REGION, SQS_POLLERS, SQS_WAIT_SECONDS (defaults: README "Configuration"),
 * INBOX_DIR, MAX_MESSAGE_BYTES (default 1 MiB).
 */
export function sourceFromEnv({ transport, env = process.env, log }: SourceFromEnvOptions): { kind: 'sqs' | 'spool'; source: Source } {
  const maxBodyBytes = positive(env, 'MAX_MESSAGE_BYTES');
  const common = { transport, ...(log ? { log } : {}), ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }) };
  const queue = queueFromEnv(env);
  if (queue.kind === 'sqs') {
    const pollers = positive(env, 'SQS_POLLERS');
    const wait = env.SQS_WAIT_SECONDS === undefined || env.SQS_WAIT_SECONDS === '' ? undefined : Number(env.SQS_WAIT_SECONDS);
    return {
      kind: 'sqs',
      source: sqsSource({
        ...common,
        queueUrl: queue.queueUrl,
        ...(queue.endpoint ? { endpoint: queue.endpoint } : {}),
        ...(queue.region ? { region: queue.region } : {}),
        ...(pollers === undefined ? {} : { pollers }),
        ...(wait === undefined ? {} : { waitTimeSeconds: wait }),
      }),
    };
  }
  return { kind: 'spool', source: spoolSource({ ...common, dir: queue.dir }) };
}

function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${text}"`);
  return n;
}
