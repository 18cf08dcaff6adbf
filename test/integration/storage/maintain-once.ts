// Run as a child process by partition-cut.test.ts: one storage maintenance run (storage/maintenance.ts) against
// DATABASE_URL at NOW_MS with PARTITION_GRANULARITY, as `faultline start` runs it, so a failpoint armed through
// FAULTLINE_FAILPOINTS kills a real process between the steps of a change of partition cut.
import { loadSettings } from '../../../config/settings.js';
import { createPool } from '../../../db/pool.js';
import { maintainStorage } from '../../../storage/maintenance.js';

const settings = loadSettings();
const pool = createPool({ connectionString: process.env.DATABASE_URL!, max: 2 });
await maintainStorage(pool, settings.archiveDir, Number(process.env.NOW_MS), settings.partitionGranularity);
await pool.end();
