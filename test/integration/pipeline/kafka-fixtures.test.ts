// The fixture walk on the real broker and schema registry.
import { infraEnv } from '../../../infra/endpoints.js';
import { createRegistry } from '../../../schemas/registry.js';
import { registryCodec } from '../../../stages/runtime/codec.js';
import { kafkaTransport } from '../../../stages/runtime/transport/kafka.js';
import { fixtureWalk } from '../../pipeline/fixtures.case.js';
import { brokers, resetPipelineTopics } from '../../helpers/kafka.js';

const env = { ...infraEnv(), ...process.env };
await resetPipelineTopics(['dnp3.north', 'dnp3.south']);
const codec = await registryCodec(createRegistry(env.SCHEMA_REGISTRY_URL!));
fixtureWalk('Kafka transport', async () => kafkaTransport({ brokers: brokers(), codec, partitions: 3, sessionTimeoutMs: 10_000 }));
