// `faultline retention [run] [--dry-run]`: archive and remove what each organisation no longer keeps
// (docs/decisions.md#storage-lifecycle), printing each step as it goes. `retention status` lists the months
// stored and the retention of each organisation; `retention set <org> <months|keep>` changes one.
import { parseArgs } from 'node:util';
import { COMMANDS } from '../command-table.js';
import { firstKeptMonth } from '../../domain/storage-months.js';
import { recommendGranularity } from '../../domain/partition-granularity.js';
import { measuredFleet, partitionCut, timePartitions } from '../../storage/partitions.js';
import { runRetention } from '../../storage/retention.js';
import { openRuntime } from '../runtime.js';

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: COMMANDS.retention.options });
  const [action = 'run'] = positionals;
  const runtime = await openRuntime();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    if (action === 'run') {
      const dryRun = values['dry-run'];
      say(`retention ${dryRun ? 'dry run (nothing is written or removed)' : 'run'}; archive directory ${runtime.settings.archiveDir}`);
      const t0 = Date.now();
      const report = await runRetention(runtime.pool, { archiveDir: runtime.settings.archiveDir, dryRun, progress: say });
      if (!report.skipped) say(`${dryRun ? 'would do' : 'done'}: ${report.steps.length} step(s), ${report.failed.length} failed, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      if (report.failed.length) process.exitCode = 1;
    } else if (action === 'set') {
      const [, org, months] = positionals;
      if (!org || !months || !(months === 'keep' || /^[1-9]\d{0,3}$/.test(months))) throw new Error('retention set <organisation> <months | keep>: months is a whole number from 1, `keep` keeps everything');
      const value = months === 'keep' ? null : Number(months);
      const { rowCount } = await runtime.pool.query('update organizations set "RetentionMonths" = $2, updated_at = now() where "OrganizationID" = $1', [org, value]);
      if (rowCount === 0) throw new Error(`no organisation "${org}"`);
      say(`organisation ${org} ${value === null ? 'keeps everything' : `keeps ${value} months (from ${firstKeptMonth(value, Date.now())}); the next retention run archives and removes what is older`}`);
    } else if (action === 'status') {
      const { rows } = await runtime.pool.query<{ id: string; months: number | null }>('select "OrganizationID" as id, "RetentionMonths" as months from organizations order by 1');
      for (const o of rows) say(`organisation ${o.id}: ${o.months === null ? 'keeps everything' : `keeps ${o.months} months (from ${firstKeptMonth(o.months, Date.now())})`}`);
      say(`partition cut of months not yet created: ${await partitionCut(runtime.pool)} (PARTITION_GRANULARITY, recorded by the service at start)`);
      const fleet = await measuredFleet(runtime.pool);
      say(`recommended for ${fleet.devices} devices at ${fleet.checkInsPerDevicePerDay.toFixed(1)} check-ins a device a day (the last 7 days): ${recommendGranularity(fleet)} (docs/operations.md#sizing)`);
      for (const p of await timePartitions(runtime.pool)) say(`${p.partition}  ${(p.bytes / 1048576).toFixed(1)} MB`);
    } else {
      throw new Error(`retention: unknown action "${action}" (run [--dry-run] | set <organisation> <months|keep> | status)`);
    }
  } finally {
    await runtime.close();
  }
}
