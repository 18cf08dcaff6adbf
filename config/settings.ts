// Every setting of a faultline process, read from the environment once at start (README "Configuration").
// Unset infrastructure variables select the embedded default: embedded Postgres, the in-process transport,
// the spool inbox.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_LOW_CURRENT_A } from '../domain/ongoing-fault.js';
import { validateModelMap, type ModelMap } from '../domain/model-replacement.js';
import { checkNamespace } from '../stages/runtime/transport/names.js';
import { parseSplit, type ChainStage } from '../stages/shape.js';

export interface Settings {
  dataDir: string;
  /** null: start embedded Postgres under dataDir. */
  databaseUrl: string | null;
  embeddedPgPort: number;
  /** null: in-process transport. */
  kafkaBrokers: string[] | null;
  schemaRegistryUrl: string | null;
  kafkaPartitions: number;
  /** Prefix of every Kafka topic, consumer group and registry subject (stages/runtime/transport/names.ts). */
  kafkaNamespace: string;
  /** Where the stage chain is cut into segments (stages/shape.ts); empty: chained. */
  pipelineSplit: ChainStage[];
  /** Copies of each partition of the topics faultline creates; null: from the cluster's size (kafka.ts). */
  kafkaReplicationFactor: number | null;
  /** min.insync.replicas of the topics faultline creates; null: 2 with three copies or more, else 1. */
  kafkaMinInsyncReplicas: number | null;
  /** How long the group waits for a silent consumer before giving its partitions to another. */
  kafkaSessionTimeoutMs: number;
  httpPort: number;
  httpHost: string;
  /** HTTPS certificate and key files (HTTP_TLS_CERT, HTTP_TLS_KEY); null: plain HTTP (loopback, or TLS ends at a balancer). */
  httpTls: { certFile: string; keyFile: string } | null;
  /** How long SIGTERM/SIGINT may take to drain before the process exits anyway (exit code 1). */
  shutdownTimeoutMs: number;
  modelMap: ModelMap;
  modelMapFile: string;
  lowCurrentA: number;
  /** Without a check-in for this long a device counts as offline / communication lost. */
  offlineAfterHours: number;
  /** Where retention writes archive files (storage/retention.ts). */
  archiveDir: string;
}

const DEFAULT_MODEL_MAP = new URL('../schemas/config/model-map.json', import.meta.url).pathname;

function number(env: NodeJS.ProcessEnv, name: string, fallback: number, check: (n: number) => boolean = Number.isFinite): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!check(n)) throw new Error(`${name}: "${text}" is not a valid value`);
  return n;
}
function optionalNumber(env: NodeJS.ProcessEnv, name: string, check: (n: number) => boolean): number | null {
  return env[name] === undefined || env[name] === '' ? null : number(env, name, 0, check);
}
const port = (n: number) => Number.isInteger(n) && n >= 0 && n < 65536;
const positiveInt = (n: number) => Number.isInteger(n) && n > 0;

function namespace(text: string): string {
  const problem = checkNamespace(text);
  if (problem) throw new Error(`KAFKA_NAMESPACE: "${text}" ${problem}`);
  return text;
}

function httpTls(certFile: string | undefined, keyFile: string | undefined): Settings['httpTls'] {
  if (!certFile && !keyFile) return null;
  if (!certFile || !keyFile) throw new Error(`HTTP_TLS_CERT and HTTP_TLS_KEY go together: only ${certFile ? 'HTTP_TLS_CERT' : 'HTTP_TLS_KEY'} is set`);
  return { certFile: resolve(certFile), keyFile: resolve(keyFile) };
}

export function loadModelMap(file: string): ModelMap {
  const result = validateModelMap(JSON.parse(readFileSync(file, 'utf8')));
  if (!result.ok) throw new Error(`${file}: ${result.reason}`);
  return result.value;
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const dataDir = resolve(env.DATA_DIR || '.data');
  const kafka = env.KAFKA_BROKERS ? env.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean) : null;
  if (kafka && !env.SCHEMA_REGISTRY_URL) throw new Error('KAFKA_BROKERS is set but SCHEMA_REGISTRY_URL is not: pipeline topics are Avro through the registry');
  const modelMapFile = env.MODEL_MAP_FILE || DEFAULT_MODEL_MAP;
  const replicas = optionalNumber(env, 'KAFKA_REPLICATION_FACTOR', positiveInt);
  const minInsync = optionalNumber(env, 'KAFKA_MIN_INSYNC_REPLICAS', positiveInt);
  if (replicas !== null && minInsync !== null && minInsync > replicas) throw new Error(`KAFKA_MIN_INSYNC_REPLICAS (${minInsync}) exceeds KAFKA_REPLICATION_FACTOR (${replicas}): no write could succeed`);
  return {
    dataDir,
    databaseUrl: env.DATABASE_URL || null,
    embeddedPgPort: number(env, 'EMBEDDED_PG_PORT', 54329, port),
    kafkaBrokers: kafka,
    schemaRegistryUrl: env.SCHEMA_REGISTRY_URL || null,
    kafkaPartitions: number(env, 'KAFKA_PARTITIONS', 6, positiveInt),
    kafkaNamespace: namespace(env.KAFKA_NAMESPACE ?? ''),
    pipelineSplit: parseSplit(env.PIPELINE_SPLIT),
    kafkaReplicationFactor: replicas,
    kafkaMinInsyncReplicas: minInsync,
    kafkaSessionTimeoutMs: number(env, 'KAFKA_SESSION_TIMEOUT_MS', 30_000, (n) => Number.isInteger(n) && n >= 6000),
    httpPort: number(env, 'PORT', 8080, port),
    httpHost: env.HOST || '0.0.0.0',
    httpTls: httpTls(env.HTTP_TLS_CERT, env.HTTP_TLS_KEY),
    shutdownTimeoutMs: number(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, positiveInt),
    modelMap: loadModelMap(modelMapFile),
    modelMapFile,
    lowCurrentA: number(env, 'LOW_CURRENT_A', DEFAULT_LOW_CURRENT_A),
    offlineAfterHours: number(env, 'OFFLINE_AFTER_HOURS', 26, (n) => n > 0),
    archiveDir: resolve(env.ARCHIVE_DIR || resolve(dataDir, 'archive')),
  };
}
