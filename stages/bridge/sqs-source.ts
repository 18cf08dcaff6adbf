// The SQS source (spec 6.1 steps 1 and 13, spec 8): N pollers, each long-polling up to 10 messages, handing
// the batch to the bridge core and deleting the messages only after the transport accepted them.
//
// Failure handling, all without crashing:
// - receive fails (server down, restarting, an answer too slow, too large or of the wrong shape: sqs-api.ts,
//   sqs-answers.ts): log, back off (retry.ts) and poll again. Nothing a server answers ends a poller: whatever
//   else escapes a round is logged and backed off too;
// - publish fails: nothing is deleted; the messages come back after the queue's visibility timeout. All
//   pollers back off while publishing fails and receive again only once transport.ready() says yes, so an
//   outage does not spin through receives (each counts towards the queue's maxReceiveCount);
// - delete fails after the publish: failed entries are retried a few times, then logged; SQS delivers those
//   messages again and the pipeline's unique keys absorb the second copy.
// A batch's delete overlaps the poller's next receive (docs/decisions.md#bridge-and-read-performance).
// stop() waits for the receive in flight for up to the long-poll wait plus STOP_GRACE_MS, then cuts every call
// short (docs/decisions.md#sqs-request-path-hardened).
import { setTimeout as sleep } from 'node:timers/promises';
import { TOPICS } from '../../schemas/avro/topics.js';
import { backoffDelay, retry, type BackoffOptions } from '../../plumbing/retry.js';
import type { Transport } from '../runtime/transport/transport.js';
import { createBridge, type Bridge, type ReceivedMessage } from './bridge.js';
import { createSqsQueueApi, type SqsDeleteEntry, type SqsQueueApi } from './sqs-api.js';
import type { SqsMessage } from './sqs-answers.js';
import type { SqsConnectionOptions } from './sqs-client.js';
import { emptyStats, errorText, stderrLog, type Log, type Source, type SourceStats } from './source.js';

/** Spec 8: up to 10 messages per receive (also the SQS maximum). */
const MAX_MESSAGES = 10;
/** How long past the long-poll wait stop() lets the calls in flight finish before it cuts them short. */
export const STOP_GRACE_MS = 5_000;
/** A call's deadline past the long-poll wait: a server that has not answered in full by then is not answering. */
const CALL_MARGIN_MS = 15_000;

export interface SqsSourceOptions extends SqsConnectionOptions {
  transport: Transport;
  /**
   * Concurrent receive loops. Default 8: each loop waits on three round trips per 10 messages (receive,
   * publish, delete), so the bridge's throughput grows with loops until the process is CPU bound
   * (the quick end-to-end bench on 2 cores: 570/s with 2 loops, 651/s with 8).
   */
  pollers?: number;
  /** Long-poll wait per receive, 0 to 20 s. Default 1 s, so stop() returns quickly. */
  waitTimeSeconds?: number;
  /** Visibility timeout for received messages, seconds. Default: the queue's own setting. */
  visibilityTimeoutSeconds?: number;
  /** Pause after a receive that returned nothing (spec 8: 100 ms). No pause after a non-empty one. */
  emptyPollPauseMs?: number;
  /** Body size limit of the bridge core. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Back-off after failed receives and publishes. */
  backoff?: BackoffOptions;
  /** Further attempts for delete entries that failed. Default 3. */
  deleteRetries?: number;
  /** A queue client to use instead of one built from the connection options (sqs-api.ts); left open by stop(). */
  client?: SqsQueueApi;
  log?: Log;
}

/**
 * Deletes published messages from the queue, retrying the entries that failed for the server's reasons. A
 * delete that fails in the end is logged: the message comes back and downstream's unique keys absorb it.
 */
async function deletePublished(
{ client, queueUrl, stats, log, retries, backoff, halt }: { client: SqsQueueApi; queueUrl: string; stats: SourceStats; log: Log; retries: number; backoff: BackoffOptions; halt: AbortSignal },
messages: SqsMessage[],
): Promise<void> {
  let pending: SqsDeleteEntry[] = messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle }));
  try {
    await retry(async () => {
      const out = await client.deleteBatch(pending, halt);
      stats.deleted += out.Successful.length;
      const failed = out.Failed;
      // A sender fault (e.g. an expired receipt handle) will not heal on retry; the message comes back anyway.
      const refused = failed.filter((f) => f.SenderFault);
      if (refused.length) {
        stats.errors++;
        log('warn', 'SQS refused deletes after publish; those messages will be delivered again', { failed: refused.map((f) => `${f.Code}: ${f.Message ?? ''}`) });
      }
      const again = new Set(failed.filter((f) => !f.SenderFault).map((f) => f.Id));
      pending = pending.filter((e) => again.has(e.Id));
      if (pending.length) throw new Error(`${pending.length} of ${messages.length} deletes failed`);
    }, { retries, ...backoff, retriable: () => !halt.aborted });
  } catch (err) {
    stats.errors++;
    log('warn', 'SQS delete failed after publish; the messages will be delivered again (duplicates are absorbed downstream)', { queueUrl, count: pending.length, error: errorText(err) });
  }
}

/**
 * One poller's loop with the previous batch's delete running while it receives the next batch: one round trip
 * fewer to wait on per batch. At most one delete is in flight per poller (`acknowledge` resolves once the
 * previous one settled), and the poller ends only after the last settled. `remove` never rejects: a failed
 * delete is logged and the messages come back.
 */
async function withOverlappingDeletes(loop: (acknowledge: (messages: SqsMessage[]) => Promise<void>) => Promise<void>, remove: (messages: SqsMessage[]) => Promise<void>): Promise<void> {
  let deleting: Promise<void> = Promise.resolve();
  try {
    await loop((messages) => {
      const previous = deleting;
      deleting = previous.then(() => remove(messages));
      return previous;
    });
  } finally {
    await deleting;
  }
}

/** A cheap call that fails both when the server is away and when the queue is gone (a restarted in-memory server). */
async function queueAnswers(client: SqsQueueApi): Promise<boolean> {
  try {
    await client.attributes(['QueueArn'], AbortSignal.timeout(2000));
    return true;
  } catch {
    return false;
  }
}

/**
 * Hands one received batch to the bridge and deletes it once published (`acknowledge`): null, or why the publish
 * failed (nothing is deleted then, so the messages come back after their visibility timeout).
 */
async function publishReceived(bridge: Bridge, messages: SqsMessage[], stats: SourceStats, acknowledge: (messages: SqsMessage[]) => Promise<void>): Promise<string | null> {
  stats.received += messages.length;
  const batch: ReceivedMessage[] = messages.map((m) => ({ messageId: m.MessageId, body: m.Body, source: 'sqs' }));
  try {
    await bridge.forward(batch, async ({ published, deadLettered }) => {
      stats.published += published;
      stats.deadLettered += deadLettered;
      await acknowledge(messages);
    });
    return null;
  } catch (err) {
    stats.errors++;
    return errorText(err);
  }
}

/**
 * @example
 *   const source = sqsSource({ transport, queueUrl: 'http://127.0.0.1:29324/000000000000/device-messages' });
 *   await source.start();
 *   // ... on shutdown:
 *   await source.stop();
 */
export function sqsSource(options: SqsSourceOptions): Source {
  const {
    transport, queueUrl, pollers = 8, waitTimeSeconds = 1, visibilityTimeoutSeconds, emptyPollPauseMs = 100,
    maxBodyBytes, backoff = { initialMs: 200, maxMs: 10_000 }, deleteRetries = 3, log = stderrLog,
  } = options;
  if (!Number.isInteger(pollers) || pollers < 1) throw new RangeError(`pollers must be a positive integer, got ${pollers}`);
  if (!(waitTimeSeconds >= 0 && waitTimeSeconds <= 20)) throw new RangeError(`waitTimeSeconds must be 0 to 20, got ${waitTimeSeconds}`);

  // Long polls must not trip the client's request timeout.
  const newClient = () => options.client ?? createSqsQueueApi({ requestTimeoutMs: waitTimeSeconds * 1000 + CALL_MARGIN_MS, ...options }, log);
  let client = newClient();
  let probe: SqsQueueApi | null = null;
  // Durable: a message is deleted only once its record cannot be lost (in-process: once the pipeline committed it).
  const bridge = createBridge({ producer: transport.producer({ durable: true }), ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }) });
  const receiveInput = { maxMessages: MAX_MESSAGES, waitTimeSeconds, ...(visibilityTimeoutSeconds === undefined ? {} : { visibilityTimeoutSeconds }) };

  const stats = emptyStats();
  let running = false;
  let stopped = false;
  let loops: Promise<void>[] = [];
  let wake = new AbortController();
  // Aborted by stop() once the calls in flight had the long-poll wait plus STOP_GRACE_MS to finish.
  let halt = new AbortController();
  // Consecutive failed publishes, shared by all pollers: while the transport is down nobody receives.
  let publishFailures = 0;

  const pause = (ms: number) => sleep(ms, undefined, { signal: wake.signal }).catch(() => {});

  const poll = (poller: number) => withOverlappingDeletes(
    (acknowledge) => receiveLoop(poller, acknowledge),
    (messages) => deletePublished({ client, queueUrl, stats, log, retries: deleteRetries, backoff, halt: halt.signal }, messages),
  );

  /**
   * One poller's receive, publish, acknowledge loop; `acknowledge` resolves once the previous batch's delete
   * settled. Every expected failure has its branch; anything else a round throws is logged and backed off, so
   * no answer of any server can end a poller (or, as an unhandled rejection, the process).
   */
  async function receiveLoop(poller: number, acknowledge: (messages: SqsMessage[]) => Promise<void>): Promise<void> {
    let receiveFailures = 0;
    let unexpected = 0;
    while (running) {
      try {
        if (publishFailures > 0) {
          await pause(backoffDelay(publishFailures, backoff));
          if (!running) break;
          // While the transport is down a receive would only add to each message's receive count, and past
          // the queue's maxReceiveCount SQS moves good messages to its dead-letter queue. Ask first.
          if (!(await transport.ready().catch(() => false))) {
            publishFailures++;
            continue;
          }
        }
        // Not cut short by stop() at once: a receive cut short leaves its messages invisible until their
        // timeout. stop() gives it the long-poll wait plus STOP_GRACE_MS, then aborts it (`halt`).
        const messages = await client.receive(receiveInput, halt.signal).catch((err: unknown) => {
          stats.errors++;
          log('warn', 'SQS receive failed; backing off', { poller, attempt: receiveFailures + 1, queueUrl, error: errorText(err) });
          return null;
        });
        if (messages === null) {
          await pause(backoffDelay(++receiveFailures, backoff));
          continue;
        }
        receiveFailures = 0;
        if (messages.length === 0) {
          await pause(emptyPollPauseMs);
          continue;
        }
        const failed = await publishReceived(bridge, messages, stats, acknowledge);
        if (failed === null) publishFailures = 0;
        else log('warn', 'publish failed; the messages stay in SQS and return after their visibility timeout', { poller, count: messages.length, attempt: ++publishFailures, error: failed });
        unexpected = 0;
      } catch (err) {
        unexpected++;
        stats.errors++;
        log('error', 'SQS poller round failed unexpectedly; backing off', { poller, attempt: unexpected, queueUrl, error: errorText(err) });
        await pause(backoffDelay(unexpected, backoff));
      }
    }
  }

  return {
    async start() {
      if (running) return;
      // Like the stage runner: the topics exist before the first publish (Kafka does not auto-create them).
      await transport.ensureTopics([TOPICS.raw, TOPICS.dlq]);
      running = true;
      wake = new AbortController();
      halt = new AbortController();
      if (stopped) { client = newClient(); stopped = false; }
      loops = Array.from({ length: pollers }, (_, i) => poll(i));
    },
    async stop() {
      if (!running) return;
      running = false;
      wake.abort();
      const cut = setTimeout(() => halt.abort(), waitTimeSeconds * 1000 + STOP_GRACE_MS);
      await Promise.all(loops);
      clearTimeout(cut);
      loops = [];
      if (!options.client) {
        client.destroy();
        probe?.destroy();
        probe = null;
        stopped = true;
      }
    },
    stats: (): SourceStats => ({ ...stats }),
    async ready() {
      // Its own client, so a probe never waits behind a long poll.
      probe ??= options.client ?? createSqsQueueApi({ ...options, requestTimeoutMs: 2000 }, log);
      return queueAnswers(probe);
    },
  };
}
