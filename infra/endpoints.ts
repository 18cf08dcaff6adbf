// Loopback addresses of the servers that infra/up.sh starts. One place, read by infra scripts (via
// `node --import tsx infra/endpoints.ts --shell`), by the test runner and by the test helpers, so a port
// is never written twice. Ports are off the usual defaults so a developer's own Kafka or Postgres
// keeps running beside ours.
//
// INFRA_PORT_OFFSET (default 0) shifts every port, so a second checkout (a git worktree) can run its own set of
// servers beside the first one's: each checkout keeps its servers' state in its own .infra/.
const OFFSET = portOffset(process.env.INFRA_PORT_OFFSET);

function portOffset(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw new Error(`INFRA_PORT_OFFSET must be a whole number from 0 to 1000, got "${raw}"`);
  return n;
}

/** Nodes of the three-broker cluster (infra/kafka-cluster.sh), started on request beside the single broker. */
export const KAFKA_CLUSTER_SIZE = 3;

export const INFRA = {
  kafka: { host: '127.0.0.1', port: 29092 + OFFSET, controllerPort: 29093 + OFFSET },
  // Node n (1-based): broker port 29160 + 2(n - 1), controller port one above.
  kafkaCluster: {
    host: '127.0.0.1',
    nodes: Array.from({ length: KAFKA_CLUSTER_SIZE }, (_, i) => ({ id: i + 1, port: 29160 + 2 * i + OFFSET, controllerPort: 29161 + 2 * i + OFFSET })),
  },
  registry: { host: '127.0.0.1', port: 28081 + OFFSET, path: '/apis/ccompat/v7' },
  sqs: { host: '127.0.0.1', port: 29324 + OFFSET, queue: 'device-messages', dlq: 'device-messages-dlq', account: '000000000000' },
  postgres: { host: '127.0.0.1', port: 25432 + OFFSET, user: 'postgres', password: 'faultline-test', database: 'faultline' },
} as const;

/**
 * Where infra/lib.sh keeps logs, pid files and data of the servers it started: INFRA_STATE_DIR, default
 * <checkout>/.infra (infra/README.md, "State").
 */
export function infraStateDir(): string {
  return process.env.INFRA_STATE_DIR || new URL('../.infra', import.meta.url).pathname;
}

/** KAFKA_BROKERS for the three-broker cluster. */
export function kafkaClusterBrokers(): string {
  return INFRA.kafkaCluster.nodes.map((n) => `${INFRA.kafkaCluster.host}:${n.port}`).join(',');
}

/** The environment variables that point faultline at the infra/ servers. */
export function infraEnv(): Record<string, string> {
  const { kafka, registry, sqs, postgres } = INFRA;
  return {
    KAFKA_BROKERS: `${kafka.host}:${kafka.port}`,
    SCHEMA_REGISTRY_URL: `http://${registry.host}:${registry.port}${registry.path}`,
    SQS_ENDPOINT: `http://${sqs.host}:${sqs.port}`,
    SQS_QUEUE_URL: `http://${sqs.host}:${sqs.port}/${sqs.account}/${sqs.queue}`,
    SQS_DLQ_URL: `http://${sqs.host}:${sqs.port}/${sqs.account}/${sqs.dlq}`,
    DATABASE_URL: `postgres://${postgres.user}:${postgres.password}@${postgres.host}:${postgres.port}/${postgres.database}`,
  };
}

// `node --import tsx infra/endpoints.ts --shell` prints KEY=value lines for the bash scripts.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '') && process.argv.includes('--shell')) {
  const { kafka, registry, sqs, postgres } = INFRA;
  const lines = {
    KAFKA_HOST: kafka.host, KAFKA_PORT: kafka.port, KAFKA_CONTROLLER_PORT: kafka.controllerPort,
    REGISTRY_HOST: registry.host, REGISTRY_PORT: registry.port, REGISTRY_PATH: registry.path,
    SQS_HOST: sqs.host, SQS_PORT: sqs.port, SQS_QUEUE: sqs.queue, SQS_DLQ: sqs.dlq, SQS_ACCOUNT: sqs.account,
    PG_HOST: postgres.host, PG_PORT: postgres.port, PG_USER: postgres.user, PG_PASSWORD: postgres.password, PG_DATABASE: postgres.database,
    KAFKA_CLUSTER_HOST: INFRA.kafkaCluster.host, KAFKA_CLUSTER_SIZE,
    KAFKA_CLUSTER_PORTS: INFRA.kafkaCluster.nodes.map((n) => n.port).join(' '),
    KAFKA_CLUSTER_CONTROLLER_PORTS: INFRA.kafkaCluster.nodes.map((n) => n.controllerPort).join(' '),
    KAFKA_CLUSTER_BROKERS: kafkaClusterBrokers(),
    ...infraEnv(),
  };
  for (const [k, v] of Object.entries(lines)) console.log(`${k}=${String(v)}`);
}
