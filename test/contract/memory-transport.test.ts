import { TOPICS } from '../../schemas/avro/topics.js';
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';
import { transportContract } from './transport.case.js';

process.env.FAULTLINE_FAST_RETRY = '1';
// The memory transport is per process: the pipeline topic name itself is unique per transport instance.
transportContract('memory', {
  make: async () => memoryTransport({ codec: localAvroCodec(), partitions: 4, retryDelayMs: 10 }),
  rawTopic: () => TOPICS.raw,
});
