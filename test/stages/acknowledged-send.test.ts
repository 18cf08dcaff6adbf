// The Kafka send that resolves only when every partition it wrote to was acknowledged: kafkajs 2.2.4 can
// answer a send that spanned a failed broker without the partitions that moved (kafkajs issue #1303), and
// those records must be sent again, in order, and only those.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message, PartitionerArgs, RecordMetadata, TopicMessages } from 'kafkajs';
import { acknowledgedSend } from '../../stages/runtime/transport/acknowledged-send.js';

const metadata: PartitionerArgs['partitionMetadata'] = [0, 1, 2, 3, 4, 5].map((partitionId) => ({ partitionId, leader: 1, partitionErrorCode: 0, replicas: [1], isr: [1] }));
const records = (n: number): Message[] => Array.from({ length: n }, (_, i) => ({ key: `35899000000${String(i).padStart(4, '0')}`, value: `r${i}` }));

/** Like kafkajs's sendBatch: partitions each record, then answers for the partitions `answers` lets through. */
function fakeSendBatch(send: ReturnType<typeof acknowledgedSend>, answers: (partition: number, call: number) => boolean) {
  const partition = send.createPartitioner();
  const calls: { partition: number; value: string }[][] = [];
  const sendBatch = async (topicMessages: TopicMessages[]): Promise<RecordMetadata[]> => {
    const sent = topicMessages.flatMap(({ topic, messages }) => messages.map((message) => ({ topic, partition: partition({ topic, partitionMetadata: metadata, message }), value: String(message.value) })));
    calls.push(sent.map(({ partition: p, value }) => ({ partition: p, value })));
    const call = calls.length;
    return [...new Set(sent.map((s) => `${s.topic}/${s.partition}`))]
      .map((k) => ({ topicName: k.split('/')[0]!, partition: Number(k.split('/')[1]), errorCode: 0 }))
      .filter((r) => answers(r.partition, call));
  };
  return { sendBatch, calls };
}

test('records of a partition the answer left out are sent again, in order, and only those', async () => {
  const send = acknowledgedSend();
  const batch = records(40);
  const { sendBatch, calls } = fakeSendBatch(send, (partition, call) => call > 1 || partition !== 1);
  const repairs: string[][] = [];
  await send.send(sendBatch, [{ topic: 'fi.raw.v1', messages: batch }], (unanswered) => repairs.push(unanswered));
  assert.is(calls.length, 2);
  assert.equal(repairs, [['fi.raw.v1/1']]);
  const first = calls[0]!;
  assert.equal(calls[1], first.filter((c) => c.partition === 1), 'the second send carries partition 1 only, in the first send\'s order');
  assert.ok(calls[1]!.length > 0 && calls[1]!.length < batch.length);
});

test('a send answered for every partition is sent once', async () => {
  const send = acknowledgedSend();
  const { sendBatch, calls } = fakeSendBatch(send, () => true);
  await send.send(sendBatch, [{ topic: 'a', messages: records(20) }, { topic: 'b', messages: records(3) }]);
  assert.is(calls.length, 1);
});

test('a partition never acknowledged fails the send, so its caller redelivers', async () => {
  const send = acknowledgedSend();
  const { sendBatch, calls } = fakeSendBatch(send, (partition) => partition !== 4);
  await send.send(sendBatch, [{ topic: 'a', messages: records(40) }]).then(() => assert.unreachable('must fail'), (err: Error) => assert.match(err.message, 'a/4'));
  assert.is(calls.length, 6, 'the first send and five more');
});

test.run();
