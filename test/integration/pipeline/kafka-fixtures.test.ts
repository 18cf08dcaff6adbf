// The fixture walk on the real broker and schema registry.
import { fixtureWalk } from '../../pipeline/fixtures.case.js';
import { resetPipelineTopics, testKafkaTransport } from '../../helpers/kafka.js';

await resetPipelineTopics(['dnp3.north', 'dnp3.south']);
fixtureWalk('Kafka transport', () => testKafkaTransport());
