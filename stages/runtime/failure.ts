// Why a batch failed, sorted once for the whole runtime (docs/decisions.md#poison-records): an outage
// (database, broker or registry away, busy or timing out) is waited out however long it lasts; anything else
// is the record's own doing (a bug, a value no rule foresaw) and is narrowed down to that record, retried a
// bounded number of times and dead-lettered as PROCESSING_FAILED. Pure: no I/O.
import { chainOf, FaultlineError } from '../../errors/base.js';
import { fromPg } from '../../db/errors.js';
import { fromNetwork } from '../../plumbing/network-errors.js';
import { fromKafkajs } from './transport/kafka/errors.js';

export type FailureKind = 'outage' | 'record';

/**
 * One link of an error's chain as our base: ours as it is (the registry client's REGISTRY_UNAVAILABLE, persist's
 * DatabaseError, a closing transport), a library's through the one function that reads that library's errors
 * (docs/decisions.md#one-error-base). Undefined for anything else: a bug, a value no rule foresaw.
 */
function asOurs(link: unknown): FaultlineError | undefined {
  if (link instanceof FaultlineError) return link;
  return fromKafkajs(link) ?? fromPg(link) ?? fromNetwork(link);
}

/**
 * 'outage' when anything in the error's chain says trying again can help (its `retriable`); else 'record'.
 * `retriable: false` on one link is no verdict: kafkajs wraps outages in non-retriable errors, and a handler
 * may wrap a dropped connection in an error of its own, so every cause is looked at.
 */
export function classifyFailure(err: unknown): FailureKind {
  return chainOf(err).some((link) => asOurs(link)?.retriable === true) ? 'outage' : 'record';
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
