// The transport contract against the real broker and schema registry (infra/up.sh).
import { transportContract } from '../../contract/transport.case.js';
import { testKafkaTransport } from '../../../support/kafka.js';
import { randomName } from '../../../support/wait-for.js';

transportContract('kafka', {
  make: () => testKafkaTransport(),
  rawTopic: () => randomName('contract'),
});
