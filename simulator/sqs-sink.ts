// Sends messages to an SQS queue, 10 per SendMessageBatch call (the SQS maximum). Entries the server
// refuses for a transient reason, and whole calls that fail, are retried with the runtime's back-off.
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import { createSqsClient, type SqsConnectionOptions } from '../stages/bridge/sqs-client.js';
import { retry } from '../plumbing/retry.js';
import type { OutgoingMessage, Sink } from './sink.js';
import { CodedError, type CodeMeaning } from '../errors/code-table.js';

/** Why a send of the simulator's messages failed, and whether the retry policy tries again. */
export const SQS_SINK_ERRORS = {
  SQS_REFUSED: { retriable: false, meaning: 'SQS refused messages for the sender\'s fault (too large, invalid)' },
  SQS_SENDS_FAILED: { retriable: true, meaning: 'some sends failed for the server\'s reasons' },
} as const satisfies Record<string, CodeMeaning>;

export class SqsSinkError extends CodedError(SQS_SINK_ERRORS) {}

export interface SqsSinkOptions extends SqsConnectionOptions {
  /** A client to use instead of one built from the connection options; left open by close(). */
  client?: SQSClient;
  retries?: number;
}

export function sqsSink(options: SqsSinkOptions): Sink {
  const { queueUrl, retries = 5 } = options;
  const client = options.client ?? createSqsClient(options);
  return {
    async write(messages: readonly OutgoingMessage[]) {
      if (messages.length > 10) throw new RangeError(`SendMessageBatch takes at most 10 messages, got ${messages.length}`);
      let pending: SendMessageBatchRequestEntry[] = messages.map((m, i) => ({ Id: String(i), MessageBody: m.body }));
      await retry(async () => {
        const out = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }));
        const failed = out.Failed ?? [];
        const refused = failed.filter((f) => f.SenderFault);
        if (refused.length) throw new SqsSinkError('SQS_REFUSED', `SQS refused messages: ${refused.map((f) => `${f.Code}: ${f.Message ?? ''}`).join('; ')}`);
        const again = new Set(failed.map((f) => f.Id));
        pending = pending.filter((e) => again.has(e.Id));
        if (pending.length) throw new SqsSinkError('SQS_SENDS_FAILED', `${pending.length} of ${messages.length} sends failed: ${failed.map((f) => f.Code).join(', ')}`);
      }, { retries });
    },
    async close() {
      if (!options.client) client.destroy();
    },
  };
}
