// Runs one stage on a transport: batch in, handler, one send of its outputs and dead letters, then commit
// (the transport commits when eachBatch resolves). A record that cannot even be decoded is dead-lettered with
// its bytes, so it never blocks a partition.
//
// A batch that fails is sorted (failure.ts): during an outage it is thrown back and the transport delivers it
// again, for as long as the outage lasts. Any other failure is the doing of one record (a poison record): the
// batch is split in halves, run in offset order, down to the record that fails; that record is retried with
// back-off up to `maxRecordAttempts` times and then dead-lettered as PROCESSING_FAILED, and the records after
// it go on. Everything before the poison record is sent before it is retried, everything after waits for it,
// so each device's records keep their order (docs/decisions.md#poison-records). Transport-neutral: it works
// the same on Kafka and on the in-memory transport.
import { TOPICS } from '../../schemas/avro/topics.js';
import type { DeadLetter } from '../../schemas/avro/values.js';
import type { Stage } from './stage.js';
import type { BatchControls, InMessage, Subscription, Transport } from './transport/transport.js';
import { countDeadLetter, stageMetrics } from './metrics.js';
import { afterRecordFailure, blamedStage, classifyFailure } from './failure.js';
import { backoff } from '../../plumbing/retry.js';
import { log } from '../../config/log.js';
import { failpoint } from '../../config/failpoints.js';

export const DEFAULT_MAX_RECORD_ATTEMPTS = 5;

/** The live pipeline's consumer groups are `faultline.<stage>` (a replay reads under a prefix of its own). */
export const LIVE_GROUP_PREFIX = 'faultline';
export const groupName = (stage: string, prefix = LIVE_GROUP_PREFIX) => `${prefix}.${stage}`;

export interface RunOptions {
  transport: Transport;
  /** Consumer group prefix; a replay uses its own so the live groups keep their offsets. */
  groupPrefix?: string;
  fromTimestamp?: number;
  maxBatchSize?: number;
  /** Attempts at one isolated record before it is dead-lettered as PROCESSING_FAILED (MAX_RECORD_ATTEMPTS). */
  maxRecordAttempts?: number;
  /**
   * Whether the stage's dependencies answer (database, broker, registry). A record is dead-lettered only
   * while they do: an error no rule foresaw, met during an outage, waits like the outage. Default: the
   * transport's own readiness.
   */
  dependenciesUp?: () => Promise<boolean>;
}

/** The part of a thrown value a dead letter keeps: its message, and the stack for the operator. */
function describe(err: unknown): { message: string; detail: string } {
  const e = err as { message?: unknown; stack?: unknown; name?: unknown };
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0]!.slice(0, 500) : String(err).slice(0, 500);
  const detail = typeof e?.stack === 'string' ? e.stack : `${typeof e?.name === 'string' ? e.name : 'Error'}: ${message}`;
  return { message, detail: detail.slice(0, 16_000) };
}

/** The dead letter of a record the stage kept failing on: enough to find it, understand it and resubmit it. */
function processingFailed<In>(stage: Stage<In>, m: InMessage<In>, err: unknown, attempts: number): DeadLetter {
  const origin = (typeof m.value === 'object' && m.value !== null ? m.value : {}) as { messageId?: unknown; source?: unknown; body?: unknown };
  const { message, detail } = describe(err);
  const failed = blamedStage(err) ?? stage.name;
  return {
    messageId: typeof origin.messageId === 'string' ? origin.messageId : `${m.topic}/${m.partition}/${m.offset}`,
    source: typeof origin.source === 'string' ? origin.source : 'pipeline',
    imei: m.key || null,
    stage: failed,
    code: 'PROCESSING_FAILED',
    reason: `${failed} failed on this record ${attempts} times: ${message}`,
    // A raw record keeps its queue body (resubmitted as it came); a later topic's record its value as JSON.
    body: stage.input === TOPICS.raw && typeof origin.body === 'string' ? origin.body : JSON.stringify(m.value),
    rejectedAt: Date.now(),
    topic: stage.input,
    detail,
  };
}

/** The dead letter of a record whose bytes cannot be decoded: the bytes themselves, base64. */
function undecodable(stageName: string, message: InMessage<Buffer>, error: Error): DeadLetter {
  return {
    messageId: `${message.topic}/${message.partition}/${message.offset}`, source: 'pipeline', imei: message.key || null,
    stage: stageName, code: 'UNDECODABLE', reason: `record could not be decoded: ${error.message}`,
    body: message.value.toString('base64'), rejectedAt: Date.now(),
  };
}

export async function runStage<In>(stage: Stage<In>, options: RunOptions): Promise<Subscription> {
  const { transport, groupPrefix = LIVE_GROUP_PREFIX, fromTimestamp, maxBatchSize, maxRecordAttempts = DEFAULT_MAX_RECORD_ATTEMPTS } = options;
  const dependenciesUp = options.dependenciesUp ?? (() => transport.ready());
  await transport.ensureTopics([stage.input, ...stage.outputs, TOPICS.dlq]);
  const producer = transport.producer();
  const metrics = stageMetrics(stage.name);

  const poison = async (message: InMessage<Buffer>, error: Error) => {
    const letter = undecodable(stage.name, message, error);
    await producer.send([{ topic: TOPICS.dlq, key: letter.imei ?? letter.messageId, value: letter }]);
    countDeadLetter(letter);
  };

  /** Handles `messages` (one partition, in offset order) and sends what came out; throws what the stage threw. */
  const attempt = async (topic: string, partition: number, messages: InMessage<In>[], controls: BatchControls) => {
    const { produce, deadLetters, onSent } = await stage.handle({ topic, partition, messages }, controls);
    const letters = deadLetters.map((l) => ({ topic: TOPICS.dlq, key: l.imei ?? l.messageId, value: l }));
    await producer.send([...produce, ...letters]);
    onSent?.();
    metrics.processed(messages.length);
    for (const l of deadLetters) countDeadLetter(l);
  };

  /** One isolated record: retried with back-off, then dead-lettered (or thrown back while something is down). */
  const settle = async (topic: string, partition: number, m: InMessage<In>, firstError: unknown, controls: BatchControls) => {
    let err = firstError;
    for (let n = 1; ; n++) {
      const kind = classifyFailure(err);
      const step = afterRecordFailure(kind, n, maxRecordAttempts, kind === 'record' && n >= maxRecordAttempts ? await dependenciesUp().catch(() => false) : true);
      if (step === 'wait') throw err;
      if (step === 'dead-letter' && stage.input === TOPICS.dlq) {
        // The dead-letter reader cannot dead-letter into the topic it reads (the letter would come back to it
        // for ever): it keeps the record and tries again, as before poison records were isolated.
        log.error({ stage: stage.name, topic, partition, offset: m.offset, attempts: n, err: describe(err).message }, 'a dead letter cannot be stored; retrying it, its partition waits');
        throw err;
      }
      if (step === 'dead-letter') {
        const letter = processingFailed(stage, m, err, n);
        log.error({ stage: letter.stage, topic, partition, offset: m.offset, imei: letter.imei, attempts: n, err: describe(err).message }, 'record dead-lettered as PROCESSING_FAILED; the partition goes on');
        await producer.send([{ topic: TOPICS.dlq, key: letter.imei ?? letter.messageId, value: letter }]);
        countDeadLetter(letter);
        return;
      }
      metrics.recordRetried();
      log.warn({ stage: stage.name, topic, partition, offset: m.offset, imei: m.key, attempt: n, err: describe(err).message }, 'a record keeps failing; retrying it alone, the records after it wait');
      await backoff(n, { initialMs: 200, maxMs: 10_000 });
      if (!controls.isRunning()) throw err;
      await controls.heartbeat().catch(() => {});
      try {
        await attempt(topic, partition, [m], controls);
        return;
      } catch (next) {
        err = next;
      }
    }
  };

  /** Runs `messages` in two halves, in order; a half that fails for its own reason is split again. */
  const isolate = async (topic: string, partition: number, messages: InMessage<In>[], controls: BatchControls): Promise<void> => {
    const middle = Math.ceil(messages.length / 2);
    for (const part of [messages.slice(0, middle), messages.slice(middle)]) {
      if (part.length === 0) continue;
      if (!controls.isRunning()) throw new Error('stopping while a poison record was being isolated; the batch is delivered again');
      try {
        await attempt(topic, partition, part, controls);
      } catch (err) {
        if (classifyFailure(err) === 'outage') throw err;
        if (part.length > 1) await isolate(topic, partition, part, controls);
        else await settle(topic, partition, part[0]!, err, controls);
      }
    }
  };

  return transport.subscribe<In>({
    groupId: groupName(stage.group ?? stage.name, groupPrefix),
    topic: stage.input,
    fromBeginning: true,
    ...(fromTimestamp !== undefined ? { fromTimestamp } : {}),
    ...(maxBatchSize !== undefined ? { maxBatchSize } : {}),
    onAssign: stage.onAssign?.bind(stage),
    onRevoke: stage.onRevoke?.bind(stage),
    onPoison: poison,
    async eachBatch(batch, controls) {
      const stop = metrics.batchTimer();
      const release = metrics.holding(batch.messages.length);
      try {
        await attempt(batch.topic, batch.partition, batch.messages, controls);
      } catch (err) {
        metrics.failed();
        const kind = classifyFailure(err);
        log.warn({ stage: stage.name, topic: batch.topic, partition: batch.partition, records: batch.messages.length, kind, err: describe(err).message },
          kind === 'outage' ? 'batch failed (a dependency is away); it will be delivered again' : 'batch failed; looking for the record that fails');
        if (kind === 'outage') throw err;
        if (batch.messages.length === 1) await settle(batch.topic, batch.partition, batch.messages[0]!, err, controls);
        else await isolate(batch.topic, batch.partition, batch.messages, controls);
      } finally {
        release();
        stop();
      }
      // Every output of the batch is acknowledged and every database write committed; its offsets are not.
      await failpoint('chain.before-commit');
    },
  });
}
