// What every input in front of the pipeline looks like to the process that runs it (SQS, spool directory).
// A source reads messages, hands each receive batch to the bridge core (bridge.ts) and acknowledges them at
// its origin only after the transport accepted the batch.

/** Counters since start. Plain numbers for now; metrics.ts exposes them to Prometheus later. */
export interface SourceStats {
  /** Messages read from the origin (an SQS receive, a spool file read). Re-deliveries count again. */
  received: number;
  /** Records published to fi.raw.v1. */
  published: number;
  /** Records published to fi.dlq.v1. */
  deadLettered: number;
  /** Messages acknowledged at the origin (SQS DeleteMessageBatch entries, spool files removed). */
  deleted: number;
  /** Failed calls: receive, publish, delete, file reads. Each was logged and retried or left for re-delivery. */
  errors: number;
  /** Spool only: looks at a file that did not parse yet and was still changing, left for a later pass. */
  held?: number;
}

export interface Source {
  /**
   * Makes sure fi.raw.v1 and fi.dlq.v1 exist (rejects when the transport is unreachable, as the stage runner
   * does), then reads in the background. Failures after that are logged and retried, never thrown.
   */
  start(): Promise<void>;
  /** Stops reading: the receive in flight finishes and its batch is published and acknowledged first. */
  stop(): Promise<void>;
  stats(): SourceStats;
  /** For /readyz: true when the origin answers (the SQS queue exists and the server replies). */
  ready?(): Promise<boolean>;
}

export type LogLevel = 'warn' | 'error';
export type Log = (level: LogLevel, message: string, extra?: Record<string, unknown>) => void;

/** Default log: one JSON line on stderr, so a failure is never silent even before a logger is wired. */
export const stderrLog: Log = (level, message, extra) => {
  process.stderr.write(`${JSON.stringify({ level, component: 'bridge', message, ...extra })}\n`);
};

export function emptyStats(): SourceStats {
  return { received: 0, published: 0, deadLettered: 0, deleted: 0, errors: 0 };
}

/** An error as one log field: name and message, no stack. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.name && err.name !== 'Error' ? `${err.name}: ${err.message}` : err.message;
  return String(err);
}
