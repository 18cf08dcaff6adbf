// Run as a child process by crash.test.ts: one round of the fleet worker (fleet-health/worker.ts) with its real
// steps (fleet-health/steps.ts) against DATABASE_URL at NOW_MS, as `faultline start` runs it, so a failpoint armed
// through FAULTLINE_FAILPOINTS kills (or holds) a real process in the middle of the round. Prints the round.
import { createPool } from '../../../db/pool.js';
import { fleetSteps } from '../../../fleet-health/steps.js';
import { startFleetWorker } from '../../../fleet-health/worker.js';
import { FLEET_STEP_SETTINGS } from './crash-settings.js';

const pool = createPool({ connectionString: process.env.DATABASE_URL!, max: 2 });
const worker = startFleetWorker({ pool, tickMs: 60_000, clock: () => new Date(Number(process.env.NOW_MS)), steps: fleetSteps(FLEET_STEP_SETTINGS) }, { loop: false });
console.log(JSON.stringify(await worker.runOnce()));
await pool.end();
