// Sorting Postgres failures: "away or busy, try again" versus "this data can never go in". The one place pg's
// errors are read (docs/decisions.md#one-error-base): fromPg turns them into a DatabaseError of our base.
// SQLSTATE classes: https://www.postgresql.org/docs/current/errcodes-appendix.html
import { CodedError, type CodeMeaning } from '../errors/code-table.js';

const RETRIABLE_CLASSES = ['08', '53', '57', '58', '40']; // connection, resources, operator intervention, system, rollback
const RETRIABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
// pg reports a dropped connection or pool timeout as plain Errors without a SQLSTATE; pg-pool a pool used after end().
const DROPPED = /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|Cannot use a pool after calling end/i;

export const DATABASE_ERRORS = {
  DATABASE_UNAVAILABLE: { retriable: true, meaning: 'the database is away, busy, restarting, or rolled the transaction back (deadlock, serialization)' },
  DATABASE_REFUSED: { retriable: false, meaning: 'the database refused the statement for its data (a constraint, a value out of range)' },
} as const satisfies Record<string, CodeMeaning>;

export type DatabaseErrorCode = keyof typeof DATABASE_ERRORS;

/** pg's failure as ours: the same message, pg's error as the cause, its SQLSTATE when it had one. */
export class DatabaseError extends CodedError(DATABASE_ERRORS) {
  constructor(code: DatabaseErrorCode, message: string, readonly sqlState: string | undefined, cause: unknown) {
    super(code, message, { cause });
  }
}

/** pg's (or its socket's) failure as a DatabaseError; undefined for a value that is not one of pg's. */
export function fromPg(err: unknown): DatabaseError | undefined {
  if (err instanceof DatabaseError) return err;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e !== 'object' || e === null) return undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code !== undefined && RETRIABLE_NODE_CODES.has(code)) return new DatabaseError('DATABASE_UNAVAILABLE', message, undefined, err);
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) {
    return new DatabaseError(RETRIABLE_CLASSES.includes(code.slice(0, 2)) ? 'DATABASE_UNAVAILABLE' : 'DATABASE_REFUSED', message, code, err);
  }
  if (DROPPED.test(message)) return new DatabaseError('DATABASE_UNAVAILABLE', message, undefined, err);
  return undefined;
}

/** The part of a database error that may leave the process: the message, never the SQL or a stack. */
export function publicDatabaseMessage(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; sqlState?: unknown };
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0]!.slice(0, 300) : 'unknown error';
  const state = err instanceof DatabaseError ? e.sqlState : e?.code;
  return typeof state === 'string' ? `${message} (SQLSTATE ${state})` : message;
}

/** Whether another try can help: what fromPg says (false for a value that is not one of pg's). */
export function isRetriableDatabaseError(err: unknown): boolean {
  return fromPg(err)?.retriable === true;
}
