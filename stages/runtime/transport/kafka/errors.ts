// kafkajs's failures as ours (docs/decisions.md#one-error-base): the one place the runtime reads a kafkajs
// error. kafkajs has its own base with a `retriable` flag; we keep it, and add the errors that mean "the
// cluster is away or busy" whatever that flag says (kafkajs wraps outages in non-retriable errors such as
// NumberOfRetriesExceeded, whose cause the runtime looks at too).
import kafkajs from 'kafkajs';
import { CodedError, type CodeMeaning } from '../../../../errors/code-table.js';

export const BROKER_ERRORS = {
  BROKER_UNAVAILABLE: { retriable: true, meaning: 'the Kafka cluster is away, busy, or moving a partition (kafkajs says retriable, or it is one of its outage errors)' },
  BROKER_REFUSED: { retriable: false, meaning: 'the cluster refused the request itself (a message too large, an authorisation failure)' },
} as const satisfies Record<string, CodeMeaning>;

/** kafkajs errors that mean "the cluster is away or busy" whatever their `retriable` flag says. */
const OUTAGE_NAMES = new Set([
  'KafkaJSConnectionError', 'KafkaJSConnectionClosedError', 'KafkaJSRequestTimeoutError', 'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSBrokerNotFound', 'KafkaJSNoBrokerAvailableError', 'KafkaJSMetadataNotLoaded', 'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSGroupCoordinatorNotFound', 'KafkaJSTimeout', 'KafkaJSLockTimeout', 'KafkaJSStaleTopicMetadataAssignment',
]);

export class BrokerError extends CodedError(BROKER_ERRORS) {}

/** A kafkajs error as a BrokerError (the kafkajs error as its cause); undefined for anything else. */
export function fromKafkajs(err: unknown): BrokerError | undefined {
  if (!(err instanceof kafkajs.KafkaJSError)) return undefined;
  return new BrokerError(err.retriable || OUTAGE_NAMES.has(err.name) ? 'BROKER_UNAVAILABLE' : 'BROKER_REFUSED', err.message, { cause: err });
}
