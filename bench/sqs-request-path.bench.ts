// The bridge's SQS request path against the AWS SDK client it replaced (docs/decisions.md#a-lighter-sqs-request-path):
// CPU of this process per message received and deleted, 10 per request, 4 loops, on the infra/ ElasticMQ.
// Rounds alternate SDK, own path, SDK, ... on queues filled alike, so both see the same machine load.
//   node --import tsx bench/sqs-request-path.bench.ts [--messages 3000] [--rounds 3]
import { CreateQueueCommand, DeleteMessageBatchCommand, DeleteQueueCommand, ReceiveMessageCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { parseArgs } from 'node:util';
import { infraEnv } from '../infra/endpoints.js';
import { createSqsQueueApi } from '../stages/bridge/sqs-api.js';
import { createSqsClient } from '../stages/bridge/sqs-client.js';
import { stats } from '../support/stats.js';
import { progress } from './common.js';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '3' } } });
const messages = Number(values.messages);
const rounds = Number(values.rounds);
const endpoint = process.env.SQS_ENDPOINT ?? infraEnv().SQS_ENDPOINT!;
const admin = createSqsClient({ queueUrl: `${endpoint}/000000000000/admin`, endpoint });
// A check-in's size (about 1 kB).
const body = JSON.stringify({ device_data: { imei: '861000000000000', date: new Date().toISOString(), pad: 'x'.repeat(900) } });
const LOOPS = 4;

type Path = 'sdk' | 'own';

/** One receive and delete of up to 10 messages; how many it got. */
type Step = () => Promise<number>;

function steps(path: Path, queueUrl: string): { step: Step; close: () => void } {
  if (path === 'sdk') {
    const sdk = createSqsClient({ queueUrl, endpoint });
    return {
      step: async () => {
        const got = (await sdk.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }))).Messages ?? [];
        if (got.length) await sdk.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: got.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
        return got.length;
      },
      close: () => sdk.destroy(),
    };
  }
  const own = createSqsQueueApi({ queueUrl, endpoint });
  return {
    step: async () => {
      const got = await own.receive({ maxMessages: 10, waitTimeSeconds: 0 });
      if (got.length) await own.deleteBatch(got.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })));
      return got.length;
    },
    close: () => own.destroy(),
  };
}

async function oneRun(path: Path): Promise<number> {
  const queueUrl = (await admin.send(new CreateQueueCommand({ QueueName: `request-path-${path}-${Date.now()}` }))).QueueUrl!;
  try {
    for (let i = 0; i < messages; i += 10) {
      await admin.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: Array.from({ length: Math.min(10, messages - i) }, (_, j) => ({ Id: String(j), MessageBody: body })) }));
    }
    const { step, close } = steps(path, queueUrl);
    let done = 0;
    const before = process.cpuUsage();
    await Promise.all(Array.from({ length: LOOPS }, async () => {
      for (let n = await step(); n > 0; n = await step()) done += n;
    }));
    const cpu = process.cpuUsage(before);
    close();
    if (done !== messages) throw new Error(`${path}: ${done} of ${messages} messages received`);
    return (cpu.user + cpu.system) / done;
  } finally {
    await admin.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
  }
}

const perMessage: Record<Path, number[]> = { sdk: [], own: [] };
for (let round = 1; round <= rounds; round++) {
  for (const path of round % 2 ? (['sdk', 'own'] as const) : (['own', 'sdk'] as const)) {
    perMessage[path].push(await oneRun(path));
    progress(`round ${round}/${rounds}: ${path} ${Math.round(perMessage[path].at(-1)!)} µs CPU per message`);
  }
}
admin.destroy();
const sdk = stats(perMessage.sdk);
const own = stats(perMessage.own);
const ratios = perMessage.own.map((v, i) => v / perMessage.sdk[i]!);
process.stdout.write(`${JSON.stringify({ messages, rounds, loops: LOOPS, cpuMicrosPerMessage: { sdk, own }, ownOverSdk: stats(ratios) }, null, 2)}\n`);
