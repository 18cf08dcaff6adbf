// Runs one stage on a transport: batch in, handler, one send of its outputs and dead letters, then commit
// (the transport commits when eachBatch resolves). A failing handler makes the transport redeliver the
// batch; a record that cannot even be decoded is dead-lettered with its bytes, so it never blocks a partition.
import { TOPICS } from '../../schemas/avro/topics.js';
import type { DeadLetter } from '../../schemas/avro/values.js';
import type { Stage } from './stage.js';
import type { InMessage, Subscription, Transport } from './transport/transport.js';
import { countDeadLetter, stageMetrics } from './metrics.js';
import { log } from '../../config/log.js';

export interface RunOptions {
  transport: Transport;
  /** Consumer group prefix; a replay uses its own so the live groups keep their offsets. */
  groupPrefix?: string;
  fromTimestamp?: number;
  maxBatchSize?: number;
}

export async function runStage<In>(stage: Stage<In>, { transport, groupPrefix = 'faultline', fromTimestamp, maxBatchSize }: RunOptions): Promise<Subscription> {
  await transport.ensureTopics([stage.input, ...stage.outputs, TOPICS.dlq]);
  const producer = transport.producer();
  const metrics = stageMetrics(stage.name);

  const poison = async (message: InMessage<Buffer>, error: Error) => {
    const letter: DeadLetter = {
      messageId: `${message.topic}/${message.partition}/${message.offset}`, source: 'pipeline', imei: message.key || null,
      stage: stage.name, code: 'UNDECODABLE', reason: `record could not be decoded: ${error.message}`,
      body: message.value.toString('base64'), rejectedAt: Date.now(),
    };
    await producer.send([{ topic: TOPICS.dlq, key: letter.imei ?? letter.messageId, value: letter }]);
    countDeadLetter(letter);
  };

  return transport.subscribe<In>({
    groupId: `${groupPrefix}.${stage.group ?? stage.name}`,
    topic: stage.input,
    fromBeginning: true,
    ...(fromTimestamp !== undefined ? { fromTimestamp } : {}),
    ...(maxBatchSize !== undefined ? { maxBatchSize } : {}),
    onAssign: stage.onAssign?.bind(stage),
    onRevoke: stage.onRevoke?.bind(stage),
    onPoison: poison,
    async eachBatch(batch) {
      const stop = metrics.batchTimer();
      const release = metrics.holding(batch.messages.length);
      try {
        const { produce, deadLetters, onSent } = await stage.handle(batch);
        const letters = deadLetters.map((l) => ({ topic: TOPICS.dlq, key: l.imei ?? l.messageId, value: l }));
        await producer.send([...produce, ...letters]);
        onSent?.();
        metrics.processed(batch.messages.length);
        for (const l of deadLetters) countDeadLetter(l);
      } catch (err) {
        metrics.failed();
        log.warn({ stage: stage.name, topic: batch.topic, partition: batch.partition, records: batch.messages.length, err: (err as Error).message }, 'batch failed; it will be delivered again');
        throw err;
      } finally {
        release();
        stop();
      }
    },
  });
}
