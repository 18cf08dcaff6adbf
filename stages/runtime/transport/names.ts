// Deployed Kafka names: every topic and consumer group faultline creates or joins goes through here, so two
// deployments (or a bench and a deployment) can share one Kafka cluster and one schema registry without reading
// each other's records or splitting each other's partitions. The code speaks of logical names (`fi.raw.v1`,
// `faultline.enrich`, a device's DNP3 address); the Kafka transport maps them at its edge.
//
// KAFKA_NAMESPACE=`north-prod` deploys `north-prod.fi.raw.v1`, group `north-prod.faultline.enrich`, registry
// subject `north-prod.fi.raw.v1-value`. Empty (the default): the names as they are, so an existing
// deployment keeps its topics.

import { checkNamespace } from '../../../config/kafka-namespace.js';

export interface KafkaNames {
  readonly namespace: string;
  topic(logical: string): string;
  group(logical: string): string;
}

export function kafkaNames(namespace = ''): KafkaNames {
  const problem = checkNamespace(namespace);
  if (problem) throw new Error(`KAFKA_NAMESPACE "${namespace}" ${problem}`);
  const prefix = namespace ? `${namespace}.` : '';
  return {
    namespace,
    topic: (logical) => prefix + logical,
    group: (logical) => prefix + logical,
  };
}
