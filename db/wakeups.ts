// Runs a worker's step when there is work, not on a timer (docs/decisions.md#workers-wake-on-notify): on a
// Postgres NOTIFY on `channel` (a statement trigger on the table the work arrives in), on `kick()` from the same
// process, and every `tickMs` as the fallback for a lost notification, a dropped listening connection, and work
// that only time makes due. Overlapping wake-ups collapse into one follow-up run; a step that answers true
// (a full batch) asks for another at once. The incident worker, the alarm router and the point feed share it.
import type pg from 'pg';
import { log } from '../config/log.js';

export interface WakeupOptions {
  pool: pg.Pool;
  /** The NOTIFY channel (a name from the migrations, never a caller's text); none: the tick alone (the fleet worker). */
  channel?: string;
  tickMs: number;
  /** One round of work; true when there is more at once. A throw is logged and the next wake-up tries again. */
  step: () => Promise<boolean>;
  /** The component named in the log. */
  component: string;
}

export interface Wakeups {
  /** A round now (or right after the running one). */
  kick(): void;
  /** The running round, if any, finished; no more rounds after. */
  stop(): Promise<void>;
}

export function startWakeups(o: WakeupOptions): Wakeups {
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let listener: pg.PoolClient | undefined;

  const kick = (): void => {
    if (stopped) return;
    if (running) { again = true; return; }
    running = o.step()
      .then((more) => { if (more) again = true; })
      .catch((err: unknown) => { log.warn({ component: o.component, err: (err as Error).message }, 'round failed; tried again on the next wake-up'); })
      .finally(() => { running = undefined; if (again) { again = false; kick(); } });
  };

  const listening = (async () => {
    if (o.channel === undefined) return;
    try {
      const client = await o.pool.connect();
      if (stopped) { client.release(); return; }
      listener = client;
      listener.on('notification', kick);
      listener.on('error', (err) => log.warn({ component: o.component, err: err.message }, `listener on ${o.channel} lost; the tick keeps working`));
      await listener.query(`listen ${o.channel}`);
    } catch (err) {
      log.warn({ component: o.component, err: (err as Error).message }, `cannot LISTEN ${o.channel}; working on the tick only`);
    }
  })().then(kick);
  const timer = setInterval(kick, o.tickMs);
  timer.unref();

  return {
    kick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await listening;
      while (running) await running;
      if (listener) {
        await listener.query(`unlisten ${o.channel}`).catch(() => {});
        listener.release();
        listener = undefined;
      }
    },
  };
}
