// Replay on the real broker and Postgres: after every fixture went through the pipeline, `replay` re-reads
// fi.raw.v1 from the beginning through every stage, and every table is exactly as before.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { infraEnv } from '../../../infra/endpoints.js';
import { loadModelMap, loadSettings } from '../../../config/settings.js';
import { createRegistry } from '../../../schemas/registry.js';
import { replay } from '../../../stages/replay.js';
import { registryCodec } from '../../../stages/runtime/codec.js';
import { kafkaTransport } from '../../../stages/runtime/transport/kafka.js';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import { fixtureNames, fixtureText } from '../../helpers/checkins.js';
import { createTestDatabase, dumpTables, type TestDatabase } from '../../helpers/database.js';
import { brokers, resetPipelineTopics } from '../../helpers/kafka.js';
import { startTestPipeline, type TestPipeline } from '../../helpers/pipeline.js';
import { importDemoData } from '../../helpers/reference-data.js';

const env = { ...infraEnv(), ...process.env };
let db: TestDatabase;
let transport: Transport;
let pipe: TestPipeline;

test.before(async () => {
  await resetPipelineTopics(['dnp3.north', 'dnp3.south']);
  db = await createTestDatabase('replay');
  await importDemoData(db.pool);
  transport = kafkaTransport({ brokers: brokers(), codec: await registryCodec(createRegistry(env.SCHEMA_REGISTRY_URL!)), partitions: 3, sessionTimeoutMs: 10_000 });
  pipe = await startTestPipeline(transport, db.pool);
});
test.after(async () => {
  await pipe?.stop();
  await transport?.close();
  await db?.drop();
});

test('replaying fi.raw.v1 from the beginning leaves every table identical', async () => {
  for (const name of fixtureNames()) {
    await pipe.feed([{ name, body: fixtureText(name) }]);
    await pipe.drain();
  }
  const before = await dumpTables(db.pool);
  assert.ok((before.device_records ?? []).length >= 10, 'the fixtures were stored');

  const progress: bigint[] = [];
  const { records } = await replay({ transport, pool: db.pool, modelMap: loadModelMap(loadSettings({}).modelMapFile), from: 0, onProgress: (done) => progress.push(done), pollMs: 100 });
  assert.is(records, BigInt(fixtureNames().length), 'every raw record was re-read');
  await pipe.drain(60_000);

  assert.equal(await dumpTables(db.pool), before);
  assert.ok(progress.length > 0, 'progress was reported');
});

test.run();
