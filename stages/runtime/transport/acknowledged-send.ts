// A send to Kafka that resolves only when every partition it wrote to was acknowledged.
//
// kafkajs 2.2.4 can drop records when one request spans several brokers and one of them fails (kafkajs issue
// #1303, open): its retry skips every broker that already answered, so the partitions that moved to such a
// broker (the failed leader's, after the election) are never written, and sendBatch resolves all the same.
// The production-shape suite lost records this way when it killed a broker. So the partitioner notes which
// partition it picked for each record, the answer must name every one of them, and the records of any
// partition it does not name are sent again (in their order) before the send counts as done.
import { Partitioners, type ICustomPartitioner, type Message, type RecordMetadata, type TopicMessages } from 'kafkajs';

/** Further sends for partitions the answer left out, before the send fails (and its caller redelivers). */
const RESENDS = 5;

export interface AcknowledgedSend {
  /** kafkajs's default (murmur2) partitioner, noting each record's partition. */
  createPartitioner: ICustomPartitioner;
  /**
   * Sends with `sendBatch` (acks=all) and again for whatever partitions the answer did not name.
   * `onResend` hears of each repair, for the log.
   */
  send(sendBatch: (topicMessages: TopicMessages[]) => Promise<RecordMetadata[]>, topicMessages: TopicMessages[], onResend?: (unanswered: string[]) => void): Promise<void>;
}

export function acknowledgedSend(): AcknowledgedSend {
  const partitionOf = new WeakMap<Message, number>();
  return {
    createPartitioner: () => {
      const pick = Partitioners.DefaultPartitioner();
      return (args) => {
        const partition = pick(args);
        partitionOf.set(args.message, partition);
        return partition;
      };
    },
    async send(sendBatch, topicMessages, onResend) {
      let pending = topicMessages;
      for (let resend = 0; ; resend++) {
        const answered = new Set((await sendBatch(pending)).map((r) => `${r.topicName}/${r.partition}`));
        const unanswered = new Set<string>();
        pending = pending.map(({ topic, messages }) => ({
          topic,
          messages: messages.filter((m) => {
            const at = `${topic}/${m.partition ?? partitionOf.get(m) ?? '?'}`;
            if (answered.has(at)) return false;
            unanswered.add(at);
            return true;
          }),
        })).filter((t) => t.messages.length > 0);
        if (pending.length === 0) return;
        if (resend === RESENDS) throw new Error(`Kafka did not acknowledge partitions ${[...unanswered].join(', ')} after ${RESENDS} further sends`);
        onResend?.([...unanswered]);
      }
    },
  };
}
