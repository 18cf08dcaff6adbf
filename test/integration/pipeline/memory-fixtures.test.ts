// The fixture walk on the in-process transport (the embedded default) with real Postgres, on the chained
// default, cut at one boundary (persist) and fully split.
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { CHAIN } from '../../../config/pipeline-split.js';
import { fixtureWalk } from '../../pipeline/fixtures.case.js';

fixtureWalk('in-process transport', async () => memoryTransport({ codec: localAvroCodec(), partitions: 4 }));
fixtureWalk('in-process transport', async () => memoryTransport({ codec: localAvroCodec(), partitions: 4 }), ['persist']);
fixtureWalk('in-process transport', async () => memoryTransport({ codec: localAvroCodec(), partitions: 4 }), CHAIN.slice(1));
