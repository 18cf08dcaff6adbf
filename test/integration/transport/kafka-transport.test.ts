// The transport contract against the real broker and schema registry (infra/up.sh).
import { infraEnv } from '../../../infra/endpoints.js';
import { createRegistry } from '../../../schemas/registry.js';
import { registryCodec } from '../../../stages/runtime/codec.js';
import { kafkaTransport } from '../../../stages/runtime/transport/kafka.js';
import { transportContract } from '../../contract/transport.case.js';
import { randomName } from '../../helpers/wait-for.js';

const env = { ...infraEnv(), ...process.env };
const codec = await registryCodec(createRegistry(env.SCHEMA_REGISTRY_URL!));

transportContract('kafka', {
  make: async () => kafkaTransport({ brokers: env.KAFKA_BROKERS!.split(','), codec, partitions: 3, sessionTimeoutMs: 10_000 }),
  rawTopic: () => randomName('contract'),
});
