// A member that was out of its group for a while (stalled past the session timeout, as a process whose
// heartbeats fail while the coordinator's broker is down) and joins again with the same partitions must be
// handed them afresh: meanwhile another member processed them, so what the stages cached of them is stale
// (stages/runtime/transport/kafka/membership.ts). Real broker; the stalled member is a child process stopped
// with SIGSTOP.
import { spawn, type ChildProcess } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testKafkaTransport } from '../../../support/kafka.js';
import { randomName, waitFor } from '../../../support/wait-for.js';

const here = new URL('.', import.meta.url).pathname;
let child: ChildProcess | null = null;

test.after(() => { child?.kill('SIGKILL'); });

test('a member fenced while stalled is handed its partitions again when it rejoins', async () => {
  const topic = randomName('lapse');
  const groupId = randomName('lapse-g');
  const transport = await testKafkaTransport(1);
  try {
    await transport.ensureTopics([topic]);
    const producer = transport.producer();
    await producer.send([{ topic, key: 'k', value: { n: 1 } }]);

    const lines: Record<string, number[]>[] = [];
    child = spawn(process.execPath, ['--import', 'tsx', `${here}lapse-member.ts`, topic, groupId], { stdio: ['ignore', 'pipe', 'inherit'] });
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        lines.push(JSON.parse(buffered.slice(0, i)) as Record<string, number[]>);
        buffered = buffered.slice(i + 1);
      }
    });
    await waitFor('the first member reads the first record', () => lines.some((l) => l.batch?.includes(1)), { timeoutMs: 60_000 });

    // Stalled: its session expires, the second member takes the partition and reads what comes meanwhile.
    child.kill('SIGSTOP');
    const seen: number[] = [];
    const second = await transport.subscribe<{ n: number }>({ groupId, topic, async eachBatch(batch) { seen.push(...batch.messages.map((m) => m.value.n)); } });
    await producer.send([{ topic, key: 'k', value: { n: 2 } }]);
    await waitFor('the second member reads the record sent while the first was stalled', () => seen.includes(2), { timeoutMs: 60_000 });
    await second.stop();

    // Back: it is fenced, joins again and gets the same partition. It must be told it owns it anew.
    const before = lines.length;
    child.kill('SIGCONT');
    await producer.send([{ topic, key: 'k', value: { n: 3 } }]);
    await waitFor('the first member reads again', () => lines.slice(before).some((l) => l.batch?.includes(3)), { timeoutMs: 60_000 });
    const after = lines.slice(before);
    const firstBatch = after.findIndex((l) => l.batch);
    assert.ok(after.slice(0, firstBatch).some((l) => l.revoke?.includes(0)), `the stale ownership was revoked before the next batch: ${JSON.stringify(after)}`);
    assert.ok(after.slice(0, firstBatch).some((l) => l.assign?.includes(0)), `and the partition assigned again: ${JSON.stringify(after)}`);
    assert.not.ok(after.some((l) => l.batch?.includes(2)), 'the record the second member committed is not read twice');
  } finally {
    child?.kill('SIGTERM');
    await transport.close();
  }
});

test.run();
