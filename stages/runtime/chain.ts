// A chained segment (docs/architecture.md#pipeline-shape): several stages run one after the other on each batch,
// in memory, as one stage of the runner. What a stage produces for the next stage's input topic is handed to
// it directly (the same Avro-typed values the topic would carry); everything else (dead letters, the DNP3
// topics, the last stage's output) is sent by the runner, once, after the whole chain succeeded. Only then
// is every stage's onSent called and the input offset committed, so a failure anywhere in the chain
// redelivers the batch and each stage meets the state from before it.
import type { Stage, StageResult } from './stage.js';
import { blame } from './failure.js';
import { stageMetrics } from './metrics.js';
import type { Batch, InMessage, OutMessage } from './transport/transport.js';

export function chainStages(name: string, stages: readonly Stage<never>[]): Stage<never> {
  const [first] = stages;
  if (!first) throw new Error('a chain needs at least one stage');
  const internal = new Set(stages.slice(1).map((s) => s.input));
  const metrics = stages.map((s) => stageMetrics(s.name));
  return {
    name,
    group: first.group ?? first.name,
    input: first.input,
    outputs: [...new Set(stages.flatMap((s) => s.outputs))].filter((t) => !internal.has(t)),
    async onAssign(partitions) { for (const s of stages) await s.onAssign?.(partitions); },
    async onRevoke(partitions) { for (const s of stages) await s.onRevoke?.(partitions); },
    async handle(batch, controls): Promise<StageResult> {
      const produce: OutMessage[] = [];
      const deadLetters: StageResult['deadLetters'] = [];
      const sent: (() => void)[] = [];
      let current: Batch<never> = batch;
      for (const [i, stage] of stages.entries()) {
        if (current.messages.length === 0) break;
        const stop = metrics[i]!.batchTimer();
        // A failure names the inner stage that threw, so a poison record's dead letter does (runner.ts).
        const result = await stage.handle(current, controls).catch((err: unknown) => { blame(err, stage.name); throw err; });
        stop();
        metrics[i]!.processed(current.messages.length);
        deadLetters.push(...result.deadLetters);
        if (result.onSent) sent.push(result.onSent);
        const next = stages[i + 1];
        const handOn: InMessage<never>[] = [];
        for (const m of result.produce) {
          // Records stay in the partition they came from: every stage keys by the device's IMEI, as the
          // input topic does, so a device's records are still handled by one consumer, in order.
          if (next && m.topic === next.input) handOn.push({ topic: m.topic, partition: batch.partition, offset: String(handOn.length), key: m.key, value: m.value as never, timestamp: Date.now() });
          else produce.push(m);
        }
        if (next) current = { topic: next.input, partition: batch.partition, messages: handOn };
      }
      return { produce, deadLetters, onSent: () => { for (const f of sent) f(); } };
    },
  };
}
