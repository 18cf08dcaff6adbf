// Health checks for the infra/ servers, each a real client call rather than an open port:
//   node --import tsx infra/health.ts <kafka|registry|sqs|postgres|kafka-cluster-<n>> [--wait <seconds>] [--pid <pid>]
// Exit 0 when healthy. --wait polls until healthy or the deadline; --pid gives up at once when that
// process is gone (a crashed server should not cost the whole timeout).
// The postgres check also creates the app database if it is missing, so "healthy" means "usable".
import { setTimeout as sleep } from 'node:timers/promises';
import { INFRA, infraEnv } from './endpoints.js';

export type Component = 'kafka' | 'registry' | 'sqs' | 'postgres' | `kafka-cluster-${number}`;
const COMPONENTS: readonly string[] = ['kafka', 'registry', 'sqs', 'postgres', ...INFRA.kafkaCluster.nodes.map((n) => `kafka-cluster-${n.id}`)];

/** A node of the three-broker cluster is healthy when it answers on its own port and a controller is elected. */
async function checkClusterNode(id: number): Promise<void> {
  const node = INFRA.kafkaCluster.nodes.find((n) => n.id === id);
  if (!node) throw new Error(`no cluster node ${id}`);
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({
    clientId: 'faultline-infra-health', brokers: [`${INFRA.kafkaCluster.host}:${node.port}`], logLevel: logLevel.NOTHING,
    connectionTimeout: 2000, requestTimeout: 5000, retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (!cluster.brokers.some((b) => b.nodeId === id)) throw new Error(`node ${id} is not among the brokers yet`);
    if (cluster.controller === null) throw new Error('no active controller yet');
  } finally {
    await admin.disconnect();
  }
}

/** One attempt. Resolves when healthy; rejects with the reason otherwise. */
export async function checkHealth(component: Component): Promise<void> {
  const env = infraEnv();
  const clusterNode = /^kafka-cluster-(\d+)$/.exec(component);
  if (clusterNode) return checkClusterNode(Number(clusterNode[1]));
  switch (component) {
    case 'kafka': {
      const { Kafka, logLevel } = await import('kafkajs');
      const admin = new Kafka({
        clientId: 'faultline-infra-health', brokers: [env.KAFKA_BROKERS!], logLevel: logLevel.NOTHING,
        connectionTimeout: 2000, requestTimeout: 5000, retry: { retries: 0 },
      }).admin();
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        if (cluster.brokers.length === 0) throw new Error('describeCluster returned no brokers');
        if (cluster.controller === null) throw new Error('no active controller yet');
      } finally {
        await admin.disconnect();
      }
      return;
    }
    case 'registry': {
      const res = await fetch(`${env.SCHEMA_REGISTRY_URL!}/subjects`, { signal: AbortSignal.timeout(3000) });
      if (res.status !== 200) throw new Error(`GET /subjects answered ${res.status}`);
      await res.arrayBuffer();
      return;
    }
    case 'sqs': {
      // The SDK warns on every Node 20 process that it will need Node 22 from 2027; noise in up.sh output.
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
      const { SQSClient, ListQueuesCommand } = await import('@aws-sdk/client-sqs');
      const sqs = new SQSClient({
        region: 'elasticmq', endpoint: env.SQS_ENDPOINT!, maxAttempts: 1,
        credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      });
      try {
        const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({}), { abortSignal: AbortSignal.timeout(3000) });
        for (const url of [env.SQS_QUEUE_URL!, env.SQS_DLQ_URL!]) {
          if (!QueueUrls.includes(url)) throw new Error(`queue ${url} missing (have: ${QueueUrls.join(', ') || 'none'})`);
        }
      } finally {
        sqs.destroy();
      }
      return;
    }
    case 'postgres': {
      const { default: pg } = await import('pg');
      const { host, port, user, password, database } = INFRA.postgres;
      const admin = new pg.Client({ host, port, user, password, database: 'postgres', connectionTimeoutMillis: 2000 });
      await admin.connect();
      try {
        const found = await admin.query('select 1 from pg_database where datname = $1', [database]);
        if (found.rowCount === 0) await admin.query(`create database "${database}"`);
      } finally {
        await admin.end();
      }
      const client = new pg.Client({ connectionString: env.DATABASE_URL!, connectionTimeoutMillis: 2000 });
      await client.connect();
      try {
        await client.query('select 1');
      } finally {
        await client.end();
      }
      return;
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const component = args[0] as Component;
  if (!COMPONENTS.includes(component)) {
    console.error(`usage: health.ts <${COMPONENTS.join('|')}> [--wait <seconds>] [--pid <pid>]`);
    return 2;
  }
  const option = (name: string): number | undefined => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : undefined;
  };
  const deadline = Date.now() + (option('--wait') ?? 0) * 1000;
  const pid = option('--pid');
  for (;;) {
    try {
      await checkHealth(component);
      return 0;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (pid !== undefined && !alive(pid)) {
        console.error(`${component}: process ${pid} exited (last check: ${reason})`);
        return 1;
      }
      if (Date.now() >= deadline) {
        console.error(`${component}: unhealthy: ${reason}`);
        return 1;
      }
    }
    await sleep(500);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  process.exitCode = await main();
}
