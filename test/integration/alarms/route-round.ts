// Run as a child process by chatter-crash.test.ts: one round of the alarm router (alarms/router.ts) against
// DATABASE_URL at service time NOW_MS, so a failpoint armed through FAULTLINE_FAILPOINTS kills a real process
// in the middle of the round (config/failpoints.ts). Prints the round's result.
import { routeAlarms } from '../../../alarms/router.js';
import { createPool } from '../../../db/pool.js';
import { ROUTE_SETTINGS } from './chatter-settings.js';

const pool = createPool({ connectionString: process.env.DATABASE_URL!, max: 2 });
console.log(JSON.stringify(await routeAlarms(pool, ROUTE_SETTINGS, Number(process.env.NOW_MS))));
await pool.end();
