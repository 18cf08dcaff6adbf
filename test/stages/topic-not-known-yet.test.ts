// ensureTopics starts over when a broker does not know a topic yet (stages/runtime/transport/kafka/topics.ts):
// which kafkajs errors say so, whether thrown by a request or by the retrier that gave up on one. The errors are
// kafkajs's own classes, made the way its protocol layer makes them; the race itself needs a three-broker
// cluster (test/integration/ops/production-shape.test.ts starts every process kind against one).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { isNotKnownYet } from '../../stages/runtime/transport/kafka/topics.js';

// kafkajs is CommonJS: its error classes are on the default export.
const { KafkaJSNonRetriableError, KafkaJSProtocolError } = kafkajs;
// Its protocol layer passes the broker's error entry ({ type, code, retriable, message }), which the types call an Error.
const protocolError = (type: string, code: number, message: string) => new KafkaJSProtocolError(Object.assign(new Error(message), { type, code, retriable: true }));
const unknownTopic = protocolError('UNKNOWN_TOPIC_OR_PARTITION', 3, 'This server does not host this topic-partition');

test('a broker that does not know the topic or its leader yet: start over', () => {
  assert.ok(isNotKnownYet(unknownTopic));
  assert.ok(isNotKnownYet(protocolError('LEADER_NOT_AVAILABLE', 5, 'There is no leader for this topic-partition')));
  // The retrier's final error carries the one it gave up on.
  const gaveUp = Object.assign(new KafkaJSNonRetriableError(unknownTopic), { originalError: unknownTopic });
  assert.ok(isNotKnownYet(gaveUp));
});

test('anything else fails the start as before', () => {
  assert.not.ok(isNotKnownYet(protocolError('TOPIC_AUTHORIZATION_FAILED', 29, 'Not authorized to access topics')));
  assert.not.ok(isNotKnownYet(new Error('KAFKA_REPLICATION_FACTOR is 3 but the cluster has 1 broker(s)')));
  assert.not.ok(isNotKnownYet(undefined));
});

test.run();
