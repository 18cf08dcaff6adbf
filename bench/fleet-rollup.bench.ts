// The fleet health rollup at size (issue 44, the first Done-when): a fleet's check-ins through the persist stage
// into real Postgres in batches, some batches delivered twice and some check-ins resent, then the whole run over
// the same records again (a replay); after each, device_health_days against the recomputation from
// device_records (support/fleet-rollup-truth.ts). The Kafka path (redelivery by the transport, replay of
// fi.raw.v1) is the same statement and is proven at CI size by test/integration/fleet/health-rollup.test.ts.
//
//   node --import tsx bench/fleet-rollup.bench.ts [--checkins 1000000] [--batch 500]
//
// Writes bench/results/fleet-rollup.md.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseQueueMessage } from '../domain/validate-message.js';
import type { ComputedCheckIn } from '../schemas/avro/values.js';
import { persistBatch } from '../stages/persist/index.js';
import { computed } from '../support/checkins.js';
import { createTestDatabase } from '../support/database.js';
import { fleetCheckIns } from '../support/fleet-checkins.js';
import { compareRollup, type RollupComparison } from '../support/fleet-rollup-truth.js';
import { machineInfo } from '../support/machine.js';

const { values } = parseArgs({ options: { checkins: { type: 'string', default: '1000000' }, batch: { type: 'string', default: '500' } } });
const CHECKINS = Number(values.checkins);
const BATCH = Number(values.batch);
/** Devices per generated block (each block its own IMEI prefix), check-ins per device. */
const BLOCK_DEVICES = 100, PER_DEVICE = 200;
const blocks = Math.ceil(CHECKINS / (BLOCK_DEVICES * PER_DEVICE));
const endMs = Date.now() - 3_600_000;

function blockMessages(b: number): ComputedCheckIn[] {
  const n = Math.min(BLOCK_DEVICES * PER_DEVICE, CHECKINS - b * BLOCK_DEVICES * PER_DEVICE);
  const { messages } = fleetCheckIns({ devices: BLOCK_DEVICES, checkIns: n, endMs, seed: 1000 + b, prefix: `357${String(b).padStart(4, '0')}` });
  return messages.map((m) => {
    const parsed = parseQueueMessage(m.body);
    if (!parsed.ok) throw new Error(`${m.name}: ${parsed.reason}`);
    return computed(parsed.value, { messageId: m.name });
  });
}

const db = await createTestDatabase('fleet-rollup-bench');
const rollupDigest = async () => (await db.pool.query<{ d: string }>(`select md5(string_agg(t::text, '|' order by "IMEINumber", day)) as d from device_health_days t`)).rows[0]!.d;

/** Every block through persist in batches; every `redeliverEvery`-th batch is persisted twice. Returns messages and batches sent twice. */
async function run(redeliverEvery: number): Promise<{ messages: number; redelivered: number; ms: number }> {
  const started = Date.now();
  let messages = 0, redelivered = 0, batchNo = 0;
  for (let b = 0; b < blocks; b++) {
    const list = blockMessages(b);
    for (let i = 0; i < list.length; i += BATCH) {
      const batch = list.slice(i, i + BATCH);
      await persistBatch(db.pool, batch);
      if (redeliverEvery > 0 && ++batchNo % redeliverEvery === 0) { await persistBatch(db.pool, batch); redelivered++; }
      messages += batch.length;
    }
    if (b % 10 === 9) console.log(`  ${messages.toLocaleString('en')} messages, ${Math.round((Date.now() - started) / 1000)} s`);
  }
  return { messages, redelivered, ms: Date.now() - started };
}

const line = (c: RollupComparison) => `${c.rollupRows.toLocaleString('en')} device-days (recomputed: ${c.truthRows.toLocaleString('en')}), **${c.mismatches} mismatches**`;
try {
  console.log(`fleet rollup bench: ${CHECKINS.toLocaleString('en')} check-ins in ${blocks} blocks of ${BLOCK_DEVICES} devices`);
  const first = await run(10);
  const stored = Number((await db.pool.query('select count(*) from device_records')).rows[0].count);
  let t = Date.now();
  const afterFirst = await compareRollup(db.pool);
  const compareMs = Date.now() - t;
  console.log(`first pass: ${stored} stored, ${line(afterFirst)}`);
  const digest = await rollupDigest();
  const again = await run(0);
  t = Date.now();
  const afterReplay = await compareRollup(db.pool);
  const unchanged = (await rollupDigest()) === digest;
  console.log(`replay: ${line(afterReplay)}, table unchanged: ${unchanged}`);
  const info = machineInfo();
  const md = `# Fleet health rollup at size

\`node --import tsx bench/fleet-rollup.bench.ts --checkins ${CHECKINS} --batch ${BATCH}\` (${info.date.slice(0, 10)}, commit ${info.commit}, ${info.cores} cores of ${info.cpu}, node ${info.node}; the machine shared with other work)

${CHECKINS.toLocaleString('en')} distinct check-ins of ${(blocks * BLOCK_DEVICES).toLocaleString('en')} devices (support/fleet-checkins.ts: intervals of 5 to
60 minutes, fields left out, fractional RSSI and connection times, late arrivals, 2 % resent under another
message id) through the persist stage into PostgreSQL in batches of ${BATCH}, one batch in ten persisted twice (a
redelivered batch); then every message again (a replay of the same records). After each pass
\`device_health_days\` is compared with a recomputation from \`device_records\` (support/fleet-rollup-truth.ts).

| pass | messages | batches sent twice | time | result |
|---|---|---|---|---|
| first delivery | ${first.messages.toLocaleString('en')} | ${first.redelivered} | ${Math.round(first.ms / 1000)} s | ${stored.toLocaleString('en')} check-ins stored; ${line(afterFirst)} |
| replay of the same records | ${again.messages.toLocaleString('en')} | 0 | ${Math.round(again.ms / 1000)} s | ${line(afterReplay)}; table ${unchanged ? 'unchanged (same digest)' : '**changed**'} |

The comparison took ${Math.round(compareMs / 1000)} s. Not measured here: the Kafka transport (its redelivery and replay are
the same persist statement; test/integration/fleet/health-rollup.test.ts runs them at 4,000 check-ins), and the
rollup's cost per check-in (the lead's \`npm run bench -- --quick\` before and after).
`;
  writeFileSync(new URL('results/fleet-rollup.md', import.meta.url), md);
  if (afterFirst.mismatches || afterReplay.mismatches || !unchanged || stored !== CHECKINS) process.exitCode = 1;
} finally {
  await db.drop();
}
