// The fixture walk on the in-process transport (the embedded default) with real Postgres.
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { fixtureWalk } from '../../pipeline/fixtures.case.js';

fixtureWalk('in-process transport', async () => memoryTransport({ codec: localAvroCodec(), partitions: 4 }));
