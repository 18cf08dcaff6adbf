// What a read costs as the partitions kept grow (docs/decisions.md#reads-bounded-at-a-fine-cut): twin databases of
// --months months cut by month and by day, --records check-ins of 40 devices spread over them, and one request at a
// time of the device-data pages that take no day range (and one week for contrast) through the app in-process:
// the median and slowest of --requests requests, each statement's shared buffers (explained as production plans it,
// test/integration/storage/plan-bounds.ts) and the errors answered. Buffers do not show what the partition count
// costs in planning, executor start-up and locks (one per partition and index a statement opens); time and errors do.
//
//   node --import tsx test/integration/storage/partition-count.ts [--months 24] [--records 100000] [--requests 6]
//
// Run by hand (not a suite: a day cut of 24 months takes minutes to create); prints a Markdown report. Its last
// run is quoted in docs/decisions.md#reads-bounded-at-a-fine-cut.
import { parseArgs } from 'node:util';
import { createApp } from '../../../api/app.js';
import type { Granularity } from '../../../domain/partition-granularity.js';
import { addMonths, monthBounds, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { machineInfo } from '../../../support/machine.js';
import { importDemoData } from '../../../support/reference-data.js';
import { JWT_SECRET, login, NOW } from '../api/seeded-api.js';
import { explain, isRead, recording, type Sent } from './plan-bounds.js';

const { values } = parseArgs({ options: {
  months: { type: 'string', default: '24' }, records: { type: 'string', default: '100000' },
  requests: { type: 'string', default: '6' },
} });
const MONTHS = Number(values.months);
const SPAN = Array.from({ length: MONTHS }, (_, i) => addMonths(monthOfMs(NOW), i - MONTHS + 1));
const PREFIX = '8640000';
const DEVICE = `${PREFIX}00000002`;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
const weekFrom = monthBounds(SPAN.at(-2)!).fromMs + 7 * 86_400_000;
const PATHS = [
  '/device-records/data-log?limit=20',
  `/device-records/device-information/data-log/${DEVICE}?limit=20`,
  `/device-records/device-information/events/${DEVICE}?limit=20`,
  `/device-records/data-log?limit=20&from=${day(weekFrom)}&to=${day(weekFrom + 6 * 86_400_000)}`,
];

async function measure(cut: Granularity): Promise<string[]> {
  const db = await createTestDatabase(`partition_count_${cut}`);
  try {
    await importDemoData(db.pool);
    await registerDevices(db.pool, { prefix: PREFIX, devices: 40, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
    for (const m of SPAN) await db.pool.query('select fl_ensure_month($1::date, $2)', [`${m}-01`, cut]);
    const { rows: [parts] } = await db.pool.query<{ n: number }>(`select count(*)::int as n from fl_time_partitions() where parent = 'device_records'`);
    await generateDeviceData(db.pool, { prefix: PREFIX, devices: 40, count: Number(values.records), months: SPAN });
    await db.pool.query('vacuum analyze');
    const sent: Sent[] = [];
    const app = createApp({ readiness: {}, pool: recording(db.pool, sent), jwtSecret: JWT_SECRET, now: () => NOW, accountCacheMs: 0 });
    const token = await login(app, 'northAdmin');
    const out: string[] = [];
    for (const path of PATHS) {
      const times: number[] = [];
      const errors = new Map<number, number>();
      for (let i = 0; i < Number(values.requests); i++) {
        sent.length = 0;
        const t = performance.now();
        const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
        await res.text();
        times.push(performance.now() - t);
        if (res.status !== 200) errors.set(res.status, (errors.get(res.status) ?? 0) + 1);
      }
      const buffers: string[] = [];
      for (const q of sent.filter(isRead)) buffers.push(await explain(db.pool, q).then((e) => e.buffers.toLocaleString('en'), (e: Error) => e.message));
      times.sort((a, b) => a - b);
      const failed = [...errors].map(([status, n]) => `${n} x ${status}`).join(', ') || 'none';
      out.push(`| ${cut} | ${parts!.n} | \`${path}\` | ${times[Math.floor(times.length / 2)]!.toFixed(0)} | ${times.at(-1)!.toFixed(0)} | ${buffers.join(', ')} | ${failed} |`);
    }
    return out;
  } finally {
    await db.drop();
  }
}

const machine = machineInfo();
const rows = [...await measure('month'), ...await measure('day')];
const { rows: [settings] } = await (async () => {
  const db = await createTestDatabase('partition_count_settings');
  try { return await db.pool.query<{ locks: string; version: string }>(`select current_setting('max_locks_per_transaction') as locks, version() as version`); } finally { await db.drop(); }
})();
console.log(`# Reads by partition count

\`node --import tsx test/integration/storage/partition-count.ts --months ${MONTHS} --records ${values.records} --requests ${values.requests}\`
(docs/decisions.md#reads-bounded-at-a-fine-cut). ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, commit ${machine.commit},
${machine.date.slice(0, 10)}; ${settings!.version.split(' on ')[0]},
max_locks_per_transaction ${settings!.locks}. Admin caller, one request at a time through the app in-process; each
statement's shared buffers as production plans it (the account, the reach or moved devices, the page, the count).
An error is the API's 500; its log says why (at the day cut: \`out of shared memory\`, the lock table full).

| cut | device_records partitions | request | median ms | slowest ms | buffers per statement | errors |
|---|---|---|---|---|---|---|
${rows.join('\n')}`);
