// Every setting of a faultline process, read from the environment once at start (README "Configuration"). Only
// config/ reads the environment; everything else is handed these typed settings (docs/decisions.md#configuration-read-once).
// Unset infrastructure variables select the embedded default: embedded Postgres, the in-process transport,
// the spool inbox.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_CHATTER_SHELVE_MAX_MINUTES, SHELVE_MINUTES } from '../domain/alarm-states.js';
import { DEFAULT_LOW_CURRENT_A } from '../domain/ongoing-fault.js';
import { validateModelMap, type ModelMap } from '../domain/model-replacement.js';
import { GRANULARITIES, isGranularity, type Granularity } from '../domain/partition-granularity.js';
import { checkNamespace } from './kafka-namespace.js';
import { loadMapTiles, type MapTiles } from './map-tiles.js';
import { parseSplit, type ChainStage } from './pipeline-split.js';
import { placeholderProblem } from './secret-placeholders.js';

export interface Settings {
  dataDir: string;
  /** The portal map's tile server (MAP_TILE_URL ..., map-tiles.ts); null: the offline base layer. */
  mapTiles: MapTiles | null;
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
  /** Attempts at a record a stage keeps failing on (not an outage) before it is dead-lettered as PROCESSING_FAILED. */
  maxRecordAttempts: number;
  /** How long fi.raw.v1 keeps check-ins (retention.ms): how far back a replay reaches (docs/replay.md#how-far-back-it-reaches). */
  rawRetentionDays: number;
  httpPort: number;
  /** HOST: the address every listener binds (API, DNP3). Unset: loopback on the embedded default, every interface with DATABASE_URL. */
  httpHost: string;
  /** METRICS_PORT: /metrics and /openapi.json on this port instead of the public one (api/ops-routes.ts); null: on PORT. */
  metricsPort: number | null;
  /** IEC104_PORT (2404): the IEC 60870-5-104 controlled station's TLS port (iec104/server.ts). */
  iec104Port: number;
  /**
   * SCADA_DEDICATED_PORTS (20001-20999): the only ports an integration may name as its dedicated master port; a
   * port outside is not opened (integrations/master-ports.ts) nor imported (reference-data/master-claims.ts).
   */
  scadaDedicatedPorts: PortRange;
  /** HTTPS certificate and key files (HTTP_TLS_CERT, HTTP_TLS_KEY); null: plain HTTP (loopback, or TLS ends at a balancer). */
  httpTls: { certFile: string; keyFile: string } | null;
  /** How long SIGTERM/SIGINT may take to drain before the process exits anyway (exit code 1). */
  shutdownTimeoutMs: number;
  modelMap: ModelMap;
  modelMapFile: string;
  lowCurrentA: number;
  /** notify's bounds (stages/notify/stage.ts): NOTIFY_SWEEP_AFTER_SECONDS, NOTIFY_CHUNK_RECORDS. */
  notify: NotifySettings;
  /** Without a check-in for this long a device counts as offline / communication lost. */
  offlineAfterHours: number;
  /**
   * SILENCE_LAG_BOUND_MINUTES in seconds: silence (the communication-lost scan, the fleet triage) is judged at the
   * pipeline's progress, never more than this behind now (domain/checkin-clock.ts silenceAsOf); 0: at now.
   */
  silenceLagBoundS: number;
  /** How long a test fault stays before its clearing check-in (docs/decisions.md#test-faults). */
  testFaultClearMs: number;
  /** Fault events of one power line within this window form one incident (domain/incident-rules.ts). */
  incidentWindowMs: number;
  /** FLEET_ASSESS_MINUTES: how often the fleet worker runs its steps (fleet-health/worker.ts). */
  fleetTickMs: number;
  /** Alarm routing (alarms/, docs/decisions.md#alarm-routing). */
  alarms: AlarmSettings;
  /** Where retention writes archive files (storage/retention.ts). */
  archiveDir: string;
  /** PARTITION_GRANULARITY (month): how finely months not yet created are cut into partitions (storage/maintenance.ts). */
  partitionGranularity: Granularity;
  /** The device-message queue the bridge reads and test faults write to: SQS when SQS_QUEUE_URL is set, else the spool inbox. */
  queue: QueueConfig;
  /** INBOX_DIR ($DATA_DIR/inbox): the spool inbox, also when `faultline simulate --to spool` runs beside SQS. */
  inboxDir: string;
  /** The bridge's limits (MAX_MESSAGE_BYTES, SQS_POLLERS, SQS_WAIT_SECONDS); null: the source's own default. */
  bridge: BridgeSettings;
  /** TRUST_PROXY: proxies in front of the API (api/client-address.ts); 0: the socket peer. */
  trustProxy: number;
  /** JWT_SECRET (at least 32 bytes); null: a key generated once under dataDir (api/auth/jwt-secret.ts). */
  jwtSecret: Uint8Array | null;
  /** CODE_STRINGS_FILE: the State and FaultType strings (docs/decisions.md#codes-to-strings). */
  codeStringsFile: string;
  /** The DNP3 outstation (cli/dnp3.ts): DNP3_PORT, DNP3_PLAIN_INTEGRATION. */
  dnp3: Dnp3Settings;
  /**
   * The SCADA certificate both master listeners (DNP3, IEC 104) serve and the masters' service CA
   * (integrations/master-listener.ts): all three of DNP3_TLS_KEY, DNP3_TLS_CERT, DNP3_TLS_CA (their names kept from
   * when DNP3 was the only one), or null when none is set (half a set is refused).
   */
  scadaTls: ScadaTlsFiles | null;
  /** Where the keyring comes from (secrets/keyring.ts checks and parses it). */
  secretKeys: SecretKeySettings;
  /** The embedded default's extras (DEMO_DATA, DEMO_OMS, SIMULATE, SIMULATE_RATE); only the embedded default uses them. */
  embeddedExtras: EmbeddedExtras;
  /** MIGRATE_ON_START=1: `faultline start` with DATABASE_URL applies missing migrations (cli/runtime.ts). */
  migrateOnStart: boolean;
}

/** The queue a deployment reads: what the bridge reads and what a test fault writes to. */
/** docs/decisions.md#effects-exactly-once-sweep-feed-chunks */
export interface NotifySettings {
  /** Effects owed longer than this are applied by notify's sweep, whatever woke nothing else for them. */
  sweepAfterMs: number;
  /** Records per notify transaction and per DNP3 feed produce: a backlog goes in chunks of this size. */
  chunkRecords: number;
}

export type QueueConfig =
  | { kind: 'sqs'; queueUrl: string; endpoint?: string; region?: string }
  | { kind: 'spool'; dir: string };

export interface BridgeSettings {
  maxBodyBytes: number | null;
  sqsPollers: number | null;
  sqsWaitSeconds: number | null;
}

export interface Dnp3Settings {
  port: number;
  /** Development only: serve this one integration over plain TCP. */
  plainIntegration: string | null;
}

/** PEM files: the service's SCADA key and certificate, and the CA of masters whose integration names none. */
export interface ScadaTlsFiles { key: string; cert: string; ca: string }

/** FAULTLINE_SECRET_KEYS (the key list itself) and FAULTLINE_SECRET_KEY_FILE, trimmed; null when unset. */
export interface SecretKeySettings {
  keys: string | null;
  keyFile: string | null;
}

export interface EmbeddedExtras {
  demoData: boolean;
  demoOms: boolean;
  simulate: boolean;
  /** DEMO_FLEET=1: with the demo data, the fleet scenarios' devices and histories (cli/demo-fleet.ts). */
  demoFleet: boolean;
  /** Check-ins per second of the demo simulator. */
  simulateRate: number;
}

export type WebhookAllowance = 'loopback' | 'private' | 'link-local';

export interface AlarmSettings {
  /** The learned check-in interval is at least this (domain/checkin-clock.ts); OFFLINE_AFTER_HOURS is the ceiling. */
  checkinFloorS: number;
  /** smtp://user:pass@host:port (STARTTLS required) or smtps:// (TLS from the start); null: no e-mail. */
  smtpUrl: string | null;
  smtpFrom: string;
  /** Extra CA certificates (PEM file) the SMTP server's certificate may chain to. */
  smtpCaFile: string | null;
  /**
   * ALARM_HTTP_CA_FILE: a PEM file of private CAs that webhook targets and the SMS gateway may chain to, trusted
   * beside the system's CAs (alarms/channels/http-trust.ts); null: the system's CAs only.
   */
  httpCaFile: string | null;
  /** The SMS gateway's URL; null: no SMS. */
  smsUrl: string | null;
  /** JSON request template file (alarms/channels/sms.ts); null: the form-post default. */
  smsTemplateFile: string | null;
  /** Put where the template says {{token}} (e.g. an Authorization header). */
  smsToken: string | null;
  smsFrom: string;
  /** Private target ranges webhooks may reach (the tests allow loopback). */
  webhookAllow: WebhookAllowance[];
  /** Messages per recipient per 24 h unless the recipient sets its own. */
  capPerDay: number;
  /** More alarms than this within the window make a storm: digests instead of single messages. */
  stormThreshold: number;
  stormWindowMinutes: number;
  /** A message still failing after this long is dead (listed by `faultline alarms`, GET /api/alarm-deliveries). */
  maxAgeHours: number;
  /** Base URL of the portal for links in messages; null: no link. */
  portalUrl: string | null;
  /** The longest an operations alarm shelvable only because it chatters may be shelved for (domain/alarm-states.ts). */
  chatterShelveMaxMinutes: number;
  /** FLEET_DIGEST_HOUR: the local hour (organisation's zone) from which a day's or week's fleet digest is sent. */
  fleetDigestHour: number;
}

const WEBHOOK_ALLOWANCES: readonly WebhookAllowance[] = ['loopback', 'private', 'link-local'];

function webhookAllow(text: string | undefined): WebhookAllowance[] {
  const list = (text ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const bad = list.filter((s) => !(WEBHOOK_ALLOWANCES as readonly string[]).includes(s));
  if (bad.length) throw new Error(`ALARM_WEBHOOK_ALLOW: ${bad.join(', ')} is not one of ${WEBHOOK_ALLOWANCES.join(', ')}`);
  return list as WebhookAllowance[];
}

function smtpUrl(text: string | undefined): string | null {
  if (!text) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('ALARM_SMTP_URL is not a URL (smtp://user:password@host:587 or smtps://...)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`ALARM_SMTP_URL must start with smtp:// or smtps://, not ${url.protocol}//`);
  return text;
}

/** The alarm settings alone (tests and benches build them from their own environment). */
export function loadAlarmSettings(env: NodeJS.ProcessEnv = process.env): AlarmSettings {
  const positive = (n: number) => n > 0;
  const whole = (n: number) => Number.isInteger(n) && n > 0;
  return {
    checkinFloorS: number(env, 'CHECKIN_INTERVAL_FLOOR_MINUTES', 5, positive) * 60,
    smtpUrl: smtpUrl(env.ALARM_SMTP_URL),
    smtpFrom: env.ALARM_SMTP_FROM || 'faultline <alarms@faultline.invalid>',
    smtpCaFile: env.ALARM_SMTP_CA_FILE ? resolve(env.ALARM_SMTP_CA_FILE) : null,
    httpCaFile: env.ALARM_HTTP_CA_FILE ? resolve(env.ALARM_HTTP_CA_FILE) : null,
    smsUrl: env.ALARM_SMS_URL || null,
    smsTemplateFile: env.ALARM_SMS_TEMPLATE_FILE ? resolve(env.ALARM_SMS_TEMPLATE_FILE) : null,
    smsToken: env.ALARM_SMS_TOKEN || null,
    smsFrom: env.ALARM_SMS_FROM || 'faultline',
    webhookAllow: webhookAllow(env.ALARM_WEBHOOK_ALLOW),
    capPerDay: number(env, 'ALARM_RECIPIENT_CAP_PER_DAY', 50, whole),
    stormThreshold: number(env, 'ALARM_STORM_THRESHOLD', 20, whole),
    stormWindowMinutes: number(env, 'ALARM_STORM_WINDOW_MINUTES', 10, positive),
    maxAgeHours: number(env, 'ALARM_MAX_AGE_HOURS', 24, positive),
    portalUrl: env.PORTAL_URL || null,
    chatterShelveMaxMinutes: number(env, 'ALARM_CHATTER_SHELVE_MAX_MINUTES', DEFAULT_CHATTER_SHELVE_MAX_MINUTES, (n) => Number.isInteger(n) && n >= SHELVE_MINUTES.min && n <= SHELVE_MINUTES.max),
    fleetDigestHour: number(env, 'FLEET_DIGEST_HOUR', 7, (n) => Number.isInteger(n) && n >= 0 && n <= 23),
  };
}

const DEFAULT_MODEL_MAP = new URL('../schemas/config/model-map.json', import.meta.url).pathname;
export const DEFAULT_CODE_STRINGS_FILE = new URL('../schemas/config/code-strings.json', import.meta.url).pathname;
/** The outstation's TCP port when DNP3_PORT is unset (dnp3/server.ts). */
export const DEFAULT_DNP3_PORT = 20000;
/** The IEC 60870-5-104 controlled station's TLS port when IEC104_PORT is unset (IEC 62351-3 keeps 2404 for TLS too). */
export const DEFAULT_IEC104_PORT = 2404;

/** A range of TCP ports, both ends included. */
export interface PortRange { from: number; to: number }

/** SCADA_DEDICATED_PORTS when unset: above DNP3_PORT's default, below the ephemeral range, clear of the service's own ports. */
export const DEFAULT_SCADA_DEDICATED_PORTS: PortRange = { from: 20001, to: 20999 };

/** `from-to` (one port: `n-n`), 1 to 65535. */
function portRange(env: NodeJS.ProcessEnv, name: string, fallback: PortRange): PortRange {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const m = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(text);
  const from = Number(m?.[1]), to = Number(m?.[2]);
  if (!m || from < 1 || to > 65535 || from > to) throw new Error(`${name} must be a port range "from-to" within 1-65535 (e.g. 20001-20999), got "${text}"`);
  return { from, to };
}

/**
 * The ports the service itself listens on (PORT, METRICS_PORT, DNP3_PORT, IEC104_PORT), by port: the setting's
 * name. No SCADA integration may take one as its dedicated port (integrations/master-ports.ts).
 */
export function fixedPorts(s: Pick<Settings, 'httpPort' | 'metricsPort' | 'dnp3' | 'iec104Port'>): Map<number, string> {
  const named: [number | null, string][] = [[s.httpPort, 'PORT (the API)'], [s.metricsPort, 'METRICS_PORT'], [s.dnp3.port, 'DNP3_PORT (the DNP3 shared port)'], [s.iec104Port, 'IEC104_PORT (the IEC 104 shared port)']];
  return new Map(named.filter((e): e is [number, string] => e[0] !== null && e[0] > 0));
}

function partitionGranularity(text: string | undefined): Granularity {
  const value = text?.trim() || 'month';
  if (!isGranularity(value)) throw new Error(`PARTITION_GRANULARITY: "${value}" is not one of ${GRANULARITIES.join(', ')}`);
  return value;
}

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

/** The longest wait a Node timer holds (2^31-1 ms, about 24.8 days): a longer setTimeout fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A wait read in `unitMs` units and kept in milliseconds: refused past what a timer holds, not fired at once. */
function timerMs(env: NodeJS.ProcessEnv, name: string, fallback: number, check: (n: number) => boolean, unitMs = 1): number {
  const ms = number(env, name, fallback, check) * unitMs;
  if (ms > MAX_TIMER_MS) throw new Error(`${name}: "${env[name]}" is longer than a timer can wait (at most ${Math.floor(MAX_TIMER_MS / unitMs)}${unitMs === 1 ? ' ms' : ' s'}, about 24.8 days)`);
  return ms;
}
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

/** SQS when SQS_QUEUE_URL is set, else the spool inbox. */
function queue(env: NodeJS.ProcessEnv, inboxDir: string): QueueConfig {
  if (env.SQS_QUEUE_URL) {
    return { kind: 'sqs', queueUrl: env.SQS_QUEUE_URL, ...(env.SQS_ENDPOINT ? { endpoint: env.SQS_ENDPOINT } : {}), ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}) };
  }
  return { kind: 'spool', dir: inboxDir };
}

function positiveOrNull(env: NodeJS.ProcessEnv, name: string): number | null {
  const text = env[name];
  if (text === undefined || text === '') return null;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${text}"`);
  return n;
}

function bridge(env: NodeJS.ProcessEnv): BridgeSettings {
  const wait = optionalNumber(env, 'SQS_WAIT_SECONDS', (n) => n >= 0 && n <= 20);
  return { maxBodyBytes: positiveOrNull(env, 'MAX_MESSAGE_BYTES'), sqsPollers: positiveOrNull(env, 'SQS_POLLERS'), sqsWaitSeconds: wait };
}

/** TRUST_PROXY: unset or 0, the socket peer; n >= 1, n proxies in front (README "Configuration"). */
function trustProxy(text: string | undefined): number {
  if (text === undefined || text === '') return 0;
  if (!/^\d{1,2}$/.test(text)) throw new Error(`TRUST_PROXY: "${text}" is not a number of proxies (0, 1, 2, ...)`);
  return Number(text);
}

const MIN_JWT_SECRET_BYTES = 32;

function jwtSecret(text: string | undefined): Uint8Array | null {
  if (text === undefined || text === '') return null;
  const bytes = new TextEncoder().encode(text);
  if (bytes.length < MIN_JWT_SECRET_BYTES) throw new Error(`JWT_SECRET must be at least ${MIN_JWT_SECRET_BYTES} bytes`);
  return bytes;
}

function dnp3(env: NodeJS.ProcessEnv): Dnp3Settings {
  const port = env.DNP3_PORT ? Number(env.DNP3_PORT) : DEFAULT_DNP3_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`DNP3_PORT: "${env.DNP3_PORT}" is not a port`);
  return { port, plainIntegration: env.DNP3_PLAIN_INTEGRATION || null };
}

function scadaTls(env: NodeJS.ProcessEnv): ScadaTlsFiles | null {
  // Half a TLS configuration is an error, not a silent "off".
  const files = { DNP3_TLS_KEY: env.DNP3_TLS_KEY, DNP3_TLS_CERT: env.DNP3_TLS_CERT, DNP3_TLS_CA: env.DNP3_TLS_CA };
  const missing = Object.entries(files).filter(([, v]) => !v).map(([k]) => k);
  if (missing.length > 0 && missing.length < 3) {
    throw new Error(`SCADA master TLS: ${missing.join(' and ')} missing (mutual TLS needs ${Object.keys(files).join(', ')} together)`);
  }
  return env.DNP3_TLS_KEY && env.DNP3_TLS_CERT && env.DNP3_TLS_CA ? { key: env.DNP3_TLS_KEY, cert: env.DNP3_TLS_CERT, ca: env.DNP3_TLS_CA } : null;
}

function embeddedExtras(env: NodeJS.ProcessEnv): EmbeddedExtras {
  return {
    demoData: env.DEMO_DATA !== '0',
    demoOms: env.DEMO_OMS !== '0',
    simulate: env.SIMULATE !== '0',
    demoFleet: env.DEMO_FLEET === '1',
    simulateRate: number(env, 'SIMULATE_RATE', 0.5, (n) => n > 0),
  };
}

export function loadModelMap(file: string): ModelMap {
  const result = validateModelMap(JSON.parse(readFileSync(file, 'utf8')));
  if (!result.ok) throw new Error(`${file}: ${result.reason}`);
  return result.value;
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  // A secret left at the documentation's example is known to every reader of it (docs/decisions.md#secrets-left-at-their-example).
  const placeholder = placeholderProblem(env);
  if (placeholder) throw new Error(placeholder);
  const dataDir = resolve(env.DATA_DIR || '.data');
  const kafka = env.KAFKA_BROKERS ? env.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean) : null;
  if (kafka && !env.SCHEMA_REGISTRY_URL) throw new Error('KAFKA_BROKERS is set but SCHEMA_REGISTRY_URL is not: pipeline topics are Avro through the registry');
  const modelMapFile = env.MODEL_MAP_FILE || DEFAULT_MODEL_MAP;
  const replicas = optionalNumber(env, 'KAFKA_REPLICATION_FACTOR', positiveInt);
  const minInsync = optionalNumber(env, 'KAFKA_MIN_INSYNC_REPLICAS', positiveInt);
  const inboxDir = env.INBOX_DIR || `${dataDir}/inbox`;
  if (replicas !== null && minInsync !== null && minInsync > replicas) throw new Error(`KAFKA_MIN_INSYNC_REPLICAS (${minInsync}) exceeds KAFKA_REPLICATION_FACTOR (${replicas}): no write could succeed`);
  return {
    dataDir,
    mapTiles: loadMapTiles(env),
    databaseUrl: env.DATABASE_URL || null,
    embeddedPgPort: number(env, 'EMBEDDED_PG_PORT', 54329, port),
    kafkaBrokers: kafka,
    schemaRegistryUrl: env.SCHEMA_REGISTRY_URL || null,
    kafkaPartitions: number(env, 'KAFKA_PARTITIONS', 6, positiveInt),
    kafkaNamespace: namespace(env.KAFKA_NAMESPACE ?? ''),
    pipelineSplit: parseSplit(env.PIPELINE_SPLIT),
    kafkaReplicationFactor: replicas,
    kafkaMinInsyncReplicas: minInsync,
    kafkaSessionTimeoutMs: timerMs(env, 'KAFKA_SESSION_TIMEOUT_MS', 30_000, (n) => Number.isInteger(n) && n >= 6000),
    maxRecordAttempts: number(env, 'MAX_RECORD_ATTEMPTS', 5, (n) => Number.isInteger(n) && n >= 1 && n <= 100),
    rawRetentionDays: number(env, 'RAW_RETENTION_DAYS', 30, (n) => n > 0 && n <= 36_500),
    httpPort: number(env, 'PORT', 8080, port),
    iec104Port: number(env, 'IEC104_PORT', DEFAULT_IEC104_PORT, port),
    scadaDedicatedPorts: portRange(env, 'SCADA_DEDICATED_PORTS', DEFAULT_SCADA_DEDICATED_PORTS),
    // The embedded default is a newcomer's laptop: nothing it opens is reachable from the network unless
    // HOST says so (docs/decisions.md#safe-to-start-on-a-network).
    httpHost: env.HOST || (env.DATABASE_URL ? '0.0.0.0' : '127.0.0.1'),
    metricsPort: optionalNumber(env, 'METRICS_PORT', port),
    httpTls: httpTls(env.HTTP_TLS_CERT, env.HTTP_TLS_KEY),
    shutdownTimeoutMs: timerMs(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, positiveInt),
    modelMap: loadModelMap(modelMapFile),
    modelMapFile,
    lowCurrentA: number(env, 'LOW_CURRENT_A', DEFAULT_LOW_CURRENT_A),
    notify: {
      sweepAfterMs: number(env, 'NOTIFY_SWEEP_AFTER_SECONDS', 60, (n) => n >= 1 && n <= 86_400) * 1000,
      chunkRecords: number(env, 'NOTIFY_CHUNK_RECORDS', 200, (n) => Number.isInteger(n) && n >= 1 && n <= 10_000),
    },
    offlineAfterHours: number(env, 'OFFLINE_AFTER_HOURS', 26, (n) => n > 0),
    silenceLagBoundS: number(env, 'SILENCE_LAG_BOUND_MINUTES', 30, (n) => n >= 0 && n <= 24 * 60) * 60,
    testFaultClearMs: timerMs(env, 'TEST_FAULT_CLEAR_SECONDS', 120, (n) => Number.isInteger(n) && n >= 5 && n <= 3600, 1000),
    incidentWindowMs: timerMs(env, 'INCIDENT_WINDOW_SECONDS', 120, (n) => n > 0 && n <= 86_400, 1000),
    fleetTickMs: timerMs(env, 'FLEET_ASSESS_MINUTES', 10, (n) => Number.isInteger(n) && n >= 1 && n <= 1440, 60_000),
    alarms: loadAlarmSettings(env),
    archiveDir: resolve(env.ARCHIVE_DIR || resolve(dataDir, 'archive')),
    partitionGranularity: partitionGranularity(env.PARTITION_GRANULARITY),
    queue: queue(env, inboxDir),
    inboxDir,
    bridge: bridge(env),
    trustProxy: trustProxy(env.TRUST_PROXY),
    jwtSecret: jwtSecret(env.JWT_SECRET),
    codeStringsFile: env.CODE_STRINGS_FILE || DEFAULT_CODE_STRINGS_FILE,
    dnp3: dnp3(env),
    scadaTls: scadaTls(env),
    secretKeys: { keys: env.FAULTLINE_SECRET_KEYS?.trim() || null, keyFile: env.FAULTLINE_SECRET_KEY_FILE?.trim() || null },
    embeddedExtras: embeddedExtras(env),
    migrateOnStart: env.MIGRATE_ON_START === '1',
  };
}
