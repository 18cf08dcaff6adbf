// The SQS server from infra/up.sh through @aws-sdk/client-sqs v3 (JSON protocol): the app's queues exist
// with their dead-letter redrive; send/receive/delete; a message received maxReceiveCount times moves to
// the dead-letter queue.
import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand, DeleteMessageBatchCommand, DeleteQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand,
  SQSClient, SendMessageBatchCommand, SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { Message } from '@aws-sdk/client-sqs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { infraEnv } from '../../../infra/endpoints.js';
import { pollUntil } from './poll.js';

const env = infraEnv();
const endpoint = process.env.SQS_ENDPOINT ?? env.SQS_ENDPOINT!;
const appQueueUrl = process.env.SQS_QUEUE_URL ?? env.SQS_QUEUE_URL!;
const appDlqUrl = process.env.SQS_DLQ_URL ?? env.SQS_DLQ_URL!;
// The SDK warns once per process that it will need Node 22 from 2027; not this suite's concern.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const sqs = new SQSClient({ region: 'elasticmq', endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 });
const created: string[] = [];
const suffix = randomUUID().slice(0, 8);

async function createQueue(name: string, attributes: Record<string, string> = {}): Promise<string> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  assert.ok(QueueUrl, `no url for ${name}`);
  created.push(QueueUrl);
  return QueueUrl;
}

async function receive(queueUrl: string, max = 10): Promise<Message[]> {
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({
    QueueUrl: queueUrl, MaxNumberOfMessages: max, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['ApproximateReceiveCount'],
  }));
  return Messages;
}

test.after(async () => {
  for (const url of created) await sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => undefined);
  sqs.destroy();
});

test('the app queue exists with a 30 s visibility timeout and redrives to its DLQ after 5 receives', async () => {
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: appQueueUrl, AttributeNames: ['All'] }));
  assert.is(Attributes.VisibilityTimeout, '30');
  const redrive = JSON.parse(Attributes.RedrivePolicy ?? '{}') as { deadLetterTargetArn?: string; maxReceiveCount?: number | string };
  assert.is(Number(redrive.maxReceiveCount), 5);
  const dlq = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: appDlqUrl, AttributeNames: ['QueueArn'] }));
  assert.is(redrive.deadLetterTargetArn, dlq.Attributes?.QueueArn);
});

test('send, receive up to 10, delete', async () => {
  const url = await createQueue(`infra-test-${suffix}`);
  const bodies = Array.from({ length: 12 }, (_, i) => JSON.stringify({ n: i, id: randomUUID() }));
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: bodies[0]! }));
  const batch = await sqs.send(new SendMessageBatchCommand({
    QueueUrl: url, Entries: bodies.slice(1, 11).map((body, i) => ({ Id: `m${i}`, MessageBody: body })),
  }));
  assert.is(batch.Failed?.length ?? 0, 0);
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: bodies[11]! }));

  const got: Message[] = [];
  await pollUntil('12 messages', 10_000, async () => {
    const messages = await receive(url);
    assert.ok(messages.length <= 10, `received ${messages.length} > 10 messages in one call`);
    got.push(...messages);
    if (messages.length > 0) {
      const deleted = await sqs.send(new DeleteMessageBatchCommand({
        QueueUrl: url, Entries: messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle! })),
      }));
      assert.is(deleted.Failed?.length ?? 0, 0);
    }
    return got.length >= 12 ? true : undefined;
  });
  assert.equal(got.map((m) => m.Body).sort(), [...bodies].sort());
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({
    QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
  }));
  assert.is(Attributes.ApproximateNumberOfMessages, '0', 'deleted messages are still visible');
  assert.is(Attributes.ApproximateNumberOfMessagesNotVisible, '0', 'deleted messages are still in flight');
});

test('a message received maxReceiveCount times without delete moves to the dead-letter queue', async () => {
  const maxReceiveCount = 2;
  const dlqUrl = await createQueue(`infra-test-${suffix}-dlq`);
  const { Attributes: dlqAttrs = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }));
  const url = await createQueue(`infra-test-${suffix}-redrive`, {
    VisibilityTimeout: '1',
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqAttrs.QueueArn, maxReceiveCount }),
  });
  const body = `poison-${randomUUID()}`;
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }));

  for (let n = 1; n <= maxReceiveCount; n++) {
    const [message] = await pollUntil(`receive #${n}`, 5000, async () => {
      const messages = await receive(url, 1);
      return messages.length > 0 ? messages : undefined;
    });
    assert.is(message?.Body, body);
    assert.is(message?.Attributes?.ApproximateReceiveCount, String(n));
    // not deleted: the visibility timeout (1 s) returns it to the queue
  }
  const [dead] = await pollUntil('the message in the DLQ', 8000, async () => {
    assert.is((await receive(url, 1)).length, 0, 'the message came back after maxReceiveCount receives');
    const messages = await receive(dlqUrl, 1);
    return messages.length > 0 ? messages : undefined;
  }, 250);
  assert.is(dead?.Body, body);
});

test.run();
