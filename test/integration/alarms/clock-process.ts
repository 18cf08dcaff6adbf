// One alarm process for the clock suite: reads "<epoch ms>" lines on stdin, runs the communication-lost clock
// and the router at that instant on DATABASE_URL, answers "done <raised>" per line.
import { createInterface } from 'node:readline';
import { createPool } from '../../../db/pool.js';
import { loadAlarmSettings } from '../../../config/settings.js';
import { scanCommunicationLost } from '../../../alarms/clock.js';
import { routeAlarms } from '../../../alarms/router.js';

const pool = createPool({ connectionString: process.env.DATABASE_URL!, max: 2 });
const settings = loadAlarmSettings({ CHECKIN_INTERVAL_FLOOR_MINUTES: '5' });
const limits = { floorS: settings.checkinFloorS, ceilingS: 26 * 3600 };
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'exit') break;
  const raised = await scanCommunicationLost(pool, limits, Number(line));
  await routeAlarms(pool, settings, Number(line));
  process.stdout.write(`done ${raised.length}\n`);
}
await pool.end();
