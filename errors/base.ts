// The one error base (docs/decisions.md#one-error-base): every error faultline defines extends FaultlineError,
// so whoever catches one reads the same three things: `code` (a stable string from its capability's code
// table), `retriable` (whether waiting and trying again can help: the rule the stage runtime, the retry
// policy and the outboxes read) and the standard ES2022 `cause`. Like kafkajs's KafkaJSError, whose
// `retriable` its one retrier reads. A library's errors (pg, kafkajs, undici, nodemailer) become this base in
// one function per library, at the boundary where they meet our rules. This folder is the lowest floor
// (lint/floors.js), so every capability, the pure rules and the portal can import it. Pure: no I/O.

export interface FaultlineErrorOptions {
  /** Whether waiting and trying again can help (a dependency away or busy), not this input's own fault. */
  retriable: boolean;
  /** What went wrong underneath (ES2022 `cause`); left out of the error when undefined. */
  cause?: unknown;
}

/**
 * A capability whose code table says whether each code is retriable extends CodedError(table) instead
 * (errors/code-table.ts); one whose errors are never (or always) retriable extends this with its codes.
 *
 * @example
 *   export const SECRETS_ERRORS = { NO_SECRET_KEYS: '...', ... } as const;   // the capability's code table
 *   export class SecretsError extends FaultlineError<SecretsErrorCode> { ... }
 */
export abstract class FaultlineError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly retriable: boolean;

  constructor(code: Code, message: string, { retriable, cause }: FaultlineErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = code;
    this.retriable = retriable;
  }
}

/** The error and everything it wraps (ES2022 `cause`, AggregateError's `errors`), without repeats, depth-limited. */
export function chainOf(err: unknown): unknown[] {
  const out: unknown[] = [];
  const queue: unknown[] = [err];
  while (queue.length && out.length < 20) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null || out.includes(e)) continue;
    out.push(e);
    const x = e as { cause?: unknown; errors?: unknown };
    queue.push(x.cause, ...(Array.isArray(x.errors) ? (x.errors as unknown[]) : []));
  }
  return out;
}

/** True when the error, or anything it wraps, is one of ours that says trying again can help. */
export function isRetriable(err: unknown): boolean {
  return chainOf(err).some((e) => e instanceof FaultlineError && e.retriable);
}
