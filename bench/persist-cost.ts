// Postgres CPU of the persist stage's transaction per check-in, measured on the server process itself: one
// connection, its backend's user + system CPU from /proc before and after each persistBatch (CPU time, not wall
// time, so a loaded machine inflates it far less than the statement timings of pg_stat_statements). The bench's
// messages (simulator fleet, 3 events and 24 hourly averages per check-in) on a fresh database of the infra/
// Postgres, which must run on this machine. Compare two trees by running it in each (e.g. one without a merge
// statement) in alternation: docs/decisions.md#review-of-the-held-clear-and-the-rollup.
//
//   node --import tsx bench/persist-cost.ts [--batches 24] [--batch 250] [--devices 1000]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseQueueMessage } from '../domain/validate-message.js';
import { importReferenceData } from '../reference-data/index.js';
import { Keyring } from '../secrets/keyring.js';
import { createFleet } from '../simulator/index.js';
import { persistBatch } from '../stages/persist/index.js';
import { computed } from '../support/checkins.js';
import { createTestDatabase } from '../support/database.js';

const TICK_US = 10_000; // USER_HZ 100

/** utime + stime of a process, in µs. */
function cpuUs(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_US;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { batches: { type: 'string', default: '24' }, batch: { type: 'string', default: '250' }, devices: { type: 'string', default: '1000' } } });
  const [BATCHES, BATCH, DEVICES] = [Number(values.batches), Number(values.batch), Number(values.devices)];
  const db = await createTestDatabase('persistcost', { poolMax: 1 });
  try {
    const fleet = createFleet({ devices: DEVICES, seed: 1, eventsPerCheckIn: 3, intervalMs: 60_000, startTime: Date.UTC(2026, 10, 20) });
    await importReferenceData(db.pool, {
      organizations: [{ OrganizationID: 'bench', name: 'Bench Utility' }], powerLines: [], groups: [], users: [], integrations: [],
      devices: fleet.imeis.map((imei, i) => ({ IMEINumber: imei, OrganizationID: 'bench', Real_Name: `Bench ${i}`, Lat: 41, Long: -87, dnp3QueueAddress: 'dnp3.bench' })),
    }, { keyring: new Keyring([{ id: 'bench', key: Buffer.alloc(32, 1) }]) });
    let n = 0;
    const batch = () => Array.from({ length: BATCH }, () => {
      const parsed = parseQueueMessage(JSON.stringify(fleet.next().message));
      if (!parsed.ok) throw new Error(parsed.reason);
      return computed(parsed.value, { messageId: `persist-cost-${n++}` });
    });
    const pid = (await db.pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    for (let i = 0; i < 2; i++) await persistBatch(db.pool, batch()); // warm-up: staging tables, month partitions, plans' catalogs
    let cpu = 0;
    const started = performance.now();
    for (let i = 0; i < BATCHES; i++) {
      const messages = batch();
      const before = cpuUs(pid);
      await persistBatch(db.pool, messages);
      cpu += cpuUs(pid) - before;
    }
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(`${JSON.stringify({ checkIns: BATCHES * BATCH, batch: BATCH, devices: DEVICES, backendCpuUsPerCheckIn: Math.round(cpu / (BATCHES * BATCH)), seconds: Math.round(seconds * 10) / 10 })}\n`);
  } finally {
    await db.drop();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
