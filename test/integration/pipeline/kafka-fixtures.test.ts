// The fixture walk on the real broker and schema registry, on the chained default and the fully split shape
// (each in a Kafka namespace of its own, so neither reads the other's records).
import { randomUUID } from 'node:crypto';
import { CHAIN } from '../../../config/pipeline-split.js';
import { fixtureWalk } from '../../pipeline/fixtures.case.js';
import { testKafkaTransport } from '../../../support/kafka.js';

fixtureWalk('Kafka transport', () => testKafkaTransport(3, `fixtures-chained-${randomUUID().slice(0, 8)}`));
fixtureWalk('Kafka transport', () => testKafkaTransport(3, `fixtures-split-${randomUUID().slice(0, 8)}`), CHAIN.slice(1));
