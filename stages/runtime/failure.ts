// Why a batch failed, sorted once for the whole runtime (docs/decisions.md#poison-records): an outage
// (database, broker or registry away, busy or timing out) is waited out however long it lasts; anything else
// is the record's own doing (a bug, a value no rule foresaw) and is narrowed down to that record, retried a
// bounded number of times and dead-lettered as PROCESSING_FAILED. Pure: no I/O.
import { isRetriableDatabaseError } from '../../db/errors.js';

export type FailureKind = 'outage' | 'record';

/** kafkajs errors that mean "the cluster is away or busy" whatever their `retriable` flag says. */
const KAFKA_OUTAGE_NAMES = new Set([
  'KafkaJSConnectionError', 'KafkaJSConnectionClosedError', 'KafkaJSRequestTimeoutError', 'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSBrokerNotFound', 'KafkaJSNoBrokerAvailableError', 'KafkaJSMetadataNotLoaded', 'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSGroupCoordinatorNotFound', 'KafkaJSTimeout', 'KafkaJSLockTimeout', 'KafkaJSStaleTopicMetadataAssignment',
]);

/** Socket and DNS failures (Node's net/dns codes and undici's, which fetch throws as a cause). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED',
]);

interface ErrorLike {
  name?: unknown; code?: unknown; message?: unknown; retriable?: unknown; status?: unknown; statusCode?: unknown;
  cause?: unknown; originalError?: unknown; errors?: unknown;
}

/** The error and everything it wraps (cause, kafkajs originalError, AggregateError's errors), depth-limited. */
function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  const queue: unknown[] = [err];
  while (queue.length && out.length < 20) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null || out.includes(e as ErrorLike)) continue;
    const x = e as ErrorLike;
    out.push(x);
    queue.push(x.cause, x.originalError, ...(Array.isArray(x.errors) ? (x.errors as unknown[]) : []));
  }
  return out;
}

function isOutage(e: ErrorLike): boolean {
  // Our own errors and kafkajs's say so themselves (the registry client's REGISTRY_UNAVAILABLE, a broker's
  // NOT_LEADER_FOR_PARTITION...). `retriable: false` is no verdict: kafkajs wraps outages in non-retriable
  // errors (NumberOfRetriesExceeded), and the wrapped cause is looked at too.
  if (e.retriable === true) return true;
  if (typeof e.name === 'string' && (KAFKA_OUTAGE_NAMES.has(e.name) || e.name === 'AbortError' || e.name === 'TimeoutError')) return true;
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : null;
  if (status !== null && (status >= 500 || status === 429 || status === 408)) return true;
  // Postgres: connection, resources, operator intervention, system and rollback classes, and pg's own
  // dropped-connection errors (db/errors.ts, the one owner of that rule).
  if (isRetriableDatabaseError(e)) return true;
  // A transport closing under a batch (shutdown): the batch is delivered again, to this process or another.
  return typeof e.message === 'string' && /^transport closed$|Cannot use a pool after calling end/.test(e.message);
}

/** 'outage' when anything in the error's chain says a dependency is away; else 'record'. */
export function classifyFailure(err: unknown): FailureKind {
  return chain(err).some(isOutage) ? 'outage' : 'record';
}

/**
 * What to do with one isolated record after its `attempt`-th failed attempt (1-based): wait out an outage
 * (the attempt does not count), try again, or give up on it. A record is dead-lettered only while its
 * dependencies answer: an error nobody foresaw during an outage must not cost a good record.
 */
export function afterRecordFailure(kind: FailureKind, attempt: number, maxAttempts: number, dependenciesUp: boolean): 'wait' | 'retry' | 'dead-letter' {
  if (kind === 'outage') return 'wait';
  if (attempt < maxAttempts) return 'retry';
  return dependenciesUp ? 'dead-letter' : 'wait';
}

// Which stage of a chained segment threw (chain.ts notes it): the dead letter names that stage, not the segment.
const blamed = new WeakMap<object, string>();

export function blame(err: unknown, stage: string): void {
  if (typeof err === 'object' && err !== null && !blamed.has(err)) blamed.set(err, stage);
}

export function blamedStage(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? blamed.get(err) : undefined;
}
