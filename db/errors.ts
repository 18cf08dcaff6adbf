// Sorting Postgres failures: "away or busy, try again" versus "this data can never go in".
// SQLSTATE classes: https://www.postgresql.org/docs/current/errcodes-appendix.html

const RETRIABLE_CLASSES = ['08', '53', '57', '58', '40']; // connection, resources, operator intervention, system, rollback
const RETRIABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

export function isRetriableDatabaseError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code === 'string') {
    if (RETRIABLE_NODE_CODES.has(e.code)) return true;
    if (/^[0-9A-Z]{5}$/.test(e.code)) return RETRIABLE_CLASSES.includes(e.code.slice(0, 2));
  }
  // pg reports a dropped connection or pool timeout as plain Errors without a SQLSTATE.
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(message);
}

/** The part of a database error that may leave the process: the message, never the SQL or a stack. */
export function publicDatabaseMessage(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0]!.slice(0, 300) : 'unknown error';
  return typeof e?.code === 'string' ? `${message} (SQLSTATE ${e.code})` : message;
}
