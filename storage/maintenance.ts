// The storage work `faultline start` does by itself (docs/decisions.md#storage-lifecycle): at start and then
// daily, record the partition cut PARTITION_GRANULARITY asks for, create the coming months' partitions at it,
// move rows out of the default partitions, run retention (raw data's, then fleet health's: health-retention.ts),
// and repair the newest rows kept per device after a drop they missed (newest-rows.ts). Each step is idempotent,
// so a run cut short is completed by the next (docs/decisions.md#partition-granularity).
// Every process may run it; retention's advisory lock lets one do the work, the others skip.
import type pg from 'pg';
import { failpoint } from '../config/failpoints.js';
import { log } from '../config/log.js';
import type { Granularity } from '../domain/partition-granularity.js';
import { monthsAhead } from '../domain/storage-months.js';
import { sweepNewest, TABLES_WITH_NEWEST } from './newest-rows.js';
import { adoptStrays, ensureMonths, MONTHS_AHEAD, recordPartitionCut } from './partitions.js';
import { runRetention } from './retention.js';
import { runHealthRetention } from './health-retention.js';
import { storageMetrics } from './metrics.js';

const DAY_MS = 24 * 3_600_000;

/** One run. `granularity`: the cut of months not yet created; null keeps the one recorded. */
export async function maintainStorage(pool: pg.Pool, archiveDir: string, now = Date.now(), granularity: Granularity | null = null): Promise<void> {
  if (granularity !== null) {
    const before = await recordPartitionCut(pool, granularity);
    if (before !== granularity) log.info({ component: 'storage', from: before, to: granularity }, 'partition cut changed: months not yet created are cut by the new one, existing partitions stay');
    await failpoint('storage.cut-recorded');
  }
  const made = await ensureMonths(pool, monthsAhead(now, MONTHS_AHEAD), now);
  if (made) log.info({ component: 'storage', partitions: made }, 'partitions of the months ahead created');
  const strays = await adoptStrays(pool, now);
  if (strays.length) log.info({ component: 'storage', months: strays }, 'rows moved out of the default partitions');
  const report = await runRetention(pool, { archiveDir, now, progress: (line) => log.info({ component: 'retention' }, line) });
  if (report.failed.length) {
    storageMetrics.retentionFailedSteps.inc(report.failed.length);
    log.warn({ component: 'retention', failed: report.failed }, 'retention steps left for the next run');
  } else if (!report.skipped) {
    storageMetrics.retentionLastSuccess.set(Date.now() / 1000);
  }
  // A month a previous release's retention dropped (during an upgrade, or after a rollback) left its rows among the
  // newest kept per device: they go here (storage/newest-rows.ts).
  for (const table of TABLES_WITH_NEWEST) {
    const swept = await sweepNewest(pool, table);
    if (swept) log.warn({ component: 'storage', table, devices: swept }, 'newest rows kept of a month dropped without them removed');
  }
  // Fleet health outlives raw data (at least 36 months): its own cut, after the raw months'.
  await runHealthRetention(pool, { now, progress: (line) => log.info({ component: 'retention' }, line) });
}

export function startStorageMaintenance({ pool, archiveDir, granularity }: { pool: pg.Pool; archiveDir: string; granularity: Granularity }): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const run = () => {
    if (running) return;
    running = maintainStorage(pool, archiveDir, Date.now(), granularity)
      .catch((err: unknown) => {
        storageMetrics.maintenanceFailures.inc();
        log.warn({ component: 'storage', err: (err as Error).message }, 'storage maintenance failed; tried again in a day');
      })
      .finally(() => { running = null; });
  };
  run();
  const timer = setInterval(run, DAY_MS);
  timer.unref();
  return {
    // Not waited for: a retention step cut short leaves its rows in the database (the drop or delete is one
    // transaction after the archive is verified) and at most a `.partial` file, redone by the next run.
    async stop() { clearInterval(timer); },
  };
}
