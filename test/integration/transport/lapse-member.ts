// A consumer for ownership-lapse.test.ts, in a process of its own so that the test can stop it (SIGSTOP) long
// enough for the group to fence it. Prints one JSON line per assignment, revocation and batch.
import { testKafkaTransport } from '../../../support/kafka.js';

const [topic, groupId] = process.argv.slice(2) as [string, string];
const say = (what: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(what)}\n`);
const transport = await testKafkaTransport(1);
const sub = await transport.subscribe<{ n: number }>({
  groupId, topic,
  async onAssign(partitions) { say({ assign: partitions }); },
  async onRevoke(partitions) { say({ revoke: partitions }); },
  async eachBatch(batch) { say({ batch: batch.messages.map((m) => m.value.n) }); },
});
process.on('SIGTERM', () => { void sub.stop().then(() => transport.close()).then(() => process.exit(0)); });
