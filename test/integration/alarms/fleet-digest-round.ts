// Run as a child process by fleet-digest-crash.test.ts: one round of the alarm router (alarms/router.ts) with the
// fleet digest, against DATABASE_URL at service time NOW_MS and send hour SEND_HOUR, so a failpoint armed through
// FAULTLINE_FAILPOINTS kills (or holds) a real process in the middle of the round. Prints the round's result.
import { routeAlarms } from '../../../alarms/router.js';
import { loadAlarmSettings } from '../../../config/settings.js';
import { createPool } from '../../../db/pool.js';
import { digestSummary } from './fleet-digest-settings.js';

const pool = createPool({ connectionString: process.env.DATABASE_URL!, max: 2 });
const settings = loadAlarmSettings({ FLEET_DIGEST_HOUR: process.env.SEND_HOUR ?? '7' });
console.log(JSON.stringify(await routeAlarms(pool, settings, Number(process.env.NOW_MS), digestSummary)));
await pool.end();
