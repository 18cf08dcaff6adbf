// Storm of feeder incidents (issue 22 point 4): 10,000 indicators on 200 feeders with imported topology (a
// three-phase trunk of 10 and four single-phase laterals of 10 each), every one checked in healthy, then one
// fault per feeder at a random place on a random lateral, the faults spread over 5 minutes of device time:
// about 20 % of the indicators trip. Everything goes through the real stages (in-process transport, chained)
// into the infra/ Postgres, with the incident worker running as `faultline start` runs it (LISTEN + tick).
//
//   npm run bench:incidents -- [--feeders 200] [--per-feeder 50] [--minutes 5] [--speed 10] [--report incidents]
//
// `--speed 10` sends the 5 minutes of trips in 30 s (device times keep the 5-minute spread, so the window
// rules see the real storm). Per feeder: "located" latency from when the feeder's last trip entered the
// pipeline to when the incident step that took it committed (the section then reflects every trip), and
// whether the section is the right one (below the furthest tripped indicator, above the next). Writes
// bench/results/<report>.json and .md.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startIncidentWorker } from '../incidents/worker.js';
import { importReferenceData } from '../reference-data/index.js';
import { localAvroCodec } from '../stages/runtime/codec.js';
import { memoryTransport } from '../stages/runtime/transport/memory.js';
import { fixtureText } from '../support/checkins.js';
import { createTestDatabase } from '../support/database.js';
import { startTestPipeline } from '../support/pipeline.js';
import { progress } from './common.js';
import { machineInfo } from '../support/machine.js';
import { percentile } from '../support/stats.js';

const { values } = parseArgs({
  options: {
    feeders: { type: 'string', default: '200' }, 'per-feeder': { type: 'string', default: '50' }, minutes: { type: 'string', default: '5' },
    speed: { type: 'string', default: '10' }, report: { type: 'string', default: 'incidents' }, seed: { type: 'string', default: '22' },
  },
});
const FEEDERS = Number(values.feeders);
const LATERALS = 4;
const LENGTH = Math.floor(Number(values['per-feeder']) / (LATERALS + 1));
const SPREAD_MS = Number(values.minutes) * 60_000;
const SPEED = Number(values.speed);

let rng = Number(values.seed);
const random = () => { rng = (rng * 1_103_515_245 + 12_345) % 2 ** 31; return rng / 2 ** 31; };
const imei = (f: number, i: number) => `86400${String(f).padStart(4, '0')}${String(i).padStart(6, '0')}`;
// Device i of feeder f: 0..LENGTH-1 the trunk, then lateral j's devices; lateral j taps off trunk device 2j+1.
const trunk = (f: number, k: number) => imei(f, k);
const lateral = (f: number, j: number, k: number) => imei(f, LENGTH * (j + 1) + k);

function referenceData() {
  const devices = [];
  for (let f = 0; f < FEEDERS; f++) {
    const at = (i: number) => ({ Lat: 30 + f * 0.05 + i * 0.001, Long: -90 + (i % LENGTH) * 0.001 });
    for (let k = 0; k < LENGTH; k++) {
      devices.push({ IMEINumber: trunk(f, k), OrganizationID: 'storm', PowerLineID: `F${f}`, Real_Name: `F${f} trunk ${k}`, ...at(k), UpstreamIMEI: k === 0 ? null : trunk(f, k - 1), Phase: 'ABC' });
    }
    for (let j = 0; j < LATERALS; j++) {
      for (let k = 0; k < LENGTH; k++) {
        devices.push({
          IMEINumber: lateral(f, j, k), OrganizationID: 'storm', PowerLineID: `F${f}`, Real_Name: `F${f} lateral ${j} pole ${k}`, ...at(LENGTH * (j + 1) + k),
          UpstreamIMEI: k === 0 ? trunk(f, 2 * j + 1) : lateral(f, j, k - 1), Phase: 'ABC'[j % 3], Section: k === 0 ? `F${f} lateral ${j}` : null,
        });
      }
    }
  }
  return {
    organizations: [{ OrganizationID: 'storm', name: 'Storm utility' }],
    powerLines: Array.from({ length: FEEDERS }, (_, f) => ({ Id: `F${f}`, OrganizationID: 'storm', name: `Feeder ${f}` })),
    devices,
  };
}

let eventId = 1;
function checkIn(id: string, date: number, fault: number, eventAt?: number): string {
  const m = JSON.parse(fixtureText('002-permanent-fault.json')) as { device_data: Record<string, unknown>; events: Record<string, unknown>[] };
  m.device_data.IMEINumber = id;
  m.device_data.date = new Date(date).toISOString();
  m.device_data.Ongoing_fault = fault;
  m.events = eventAt === undefined ? [] : [{ EventID: eventId++, EventTimestamp: new Date(eventAt).toISOString(), EventType: 'PFault', PrefaultCurrent: 140, FaultCurrent: 812, RecoverCurrent: 0 }];
  return JSON.stringify(m);
}

interface Fault { feeder: number; at: number; trips: string[]; from: string; to: string | null }

async function main(): Promise<void> {
  const db = await createTestDatabase('bench_incidents', { poolMax: 16 });
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 6 });
  const pipe = await startTestPipeline(transport, db.pool);
  const committed = new Map<string, number>();
  const worker = startIncidentWorker({
    pool: db.pool,
    onChanges: (changes) => {
      const at = Date.now();
      for (const c of changes) for (const t of c.timeline) for (const trip of (t.detail.trips as { imei: string }[] | undefined) ?? []) committed.set(trip.imei, at);
    },
  });
  try {
    const t0 = Date.now();
    const counts = await importReferenceData(db.pool, referenceData(), { chunkSize: 2000 });
    progress(`imported ${counts.devices.inserted} devices on ${FEEDERS} feeders with topology in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const base = Date.now() - SPREAD_MS - 10 * 60_000;
    const all = referenceData().devices.map((d) => d.IMEINumber);
    for (let i = 0; i < all.length; i += 500) {
      await pipe.feed(all.slice(i, i + 500).map((id) => ({ name: `ok-${id}`, body: checkIn(id, base - 60_000, 0) })));
      if (i % 2000 === 0) progress(`healthy check-ins: ${i + 500} / ${all.length}`);
    }
    await pipe.drain(300_000);

    const faults: Fault[] = Array.from({ length: FEEDERS }, (_, feeder) => {
      const j = Math.floor(random() * LATERALS);
      const k = Math.floor(random() * LENGTH);
      const trips = [...Array.from({ length: 2 * j + 2 }, (_, t) => trunk(feeder, t)), ...Array.from({ length: k + 1 }, (_, t) => lateral(feeder, j, t))];
      return { feeder, at: base + random() * SPREAD_MS, trips, from: lateral(feeder, j, k), to: k + 1 < LENGTH ? lateral(feeder, j, k + 1) : null };
    });
    const sends = faults.flatMap((f) => f.trips.map((id) => ({ feeder: f.feeder, id, at: f.at + random() * 2_000 }))).sort((a, b) => a.at - b.at);
    progress(`storm: ${sends.length} of ${all.length} indicators (${((100 * sends.length) / all.length).toFixed(1)} %) trip over ${values.minutes} min of device time, sent at ${SPEED}x`);
    const fedAt = new Map<string, number>();
    const start = Date.now();
    let next = 0;
    while (next < sends.length) {
      const due = start + (sends[next]!.at - base) / SPEED;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, Math.min(wait, 100)));
      const batch = [];
      while (next < sends.length && start + (sends[next]!.at - base) / SPEED <= Date.now()) batch.push(sends[next++]!);
      if (batch.length === 0) continue;
      await pipe.feed(batch.map((s) => ({ name: `trip-${s.id}`, body: checkIn(s.id, s.at + 5_000, 4, s.at) })));
      const now = Date.now();
      for (const s of batch) fedAt.set(s.id, now);
      if (next % 200 < batch.length) progress(`trips sent: ${next} / ${sends.length}`);
    }
    await pipe.drain(300_000);
    const deadline = Date.now() + 60_000;
    while (sends.some((s) => !committed.has(s.id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));

    const latencies: number[] = [];
    let missing = 0;
    for (const f of faults) {
      const last = f.trips.reduce((m, id) => Math.max(m, fedAt.get(id) ?? 0), 0);
      const done = f.trips.reduce((m, id) => Math.max(m, committed.get(id) ?? Infinity), 0);
      if (!Number.isFinite(done)) { missing++; continue; }
      latencies.push(done - last);
    }
    const { rows } = await db.pool.query<{ PowerLineID: string; n: number; sections: { from: { imei: string }; to: { imei: string }[] }[][] }>(
      `select "PowerLineID", count(*)::int as n, json_agg(sections) as sections from incidents group by 1`);
    const byLine = new Map(rows.map((r) => [r.PowerLineID, r]));
    let correct = 0;
    for (const f of faults) {
      const r = byLine.get(`F${f.feeder}`);
      const s = r?.n === 1 ? r.sections[0]! : [];
      if (s.length === 1 && s[0]!.from.imei === f.from && JSON.stringify(s[0]!.to.map((e) => e.imei)) === JSON.stringify(f.to ? [f.to] : [])) correct++;
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const report = {
      machine: machineInfo(), feeders: FEEDERS, devices: all.length, trips: sends.length, spreadMinutes: Number(values.minutes), speed: SPEED,
      incidents: rows.reduce((n, r) => n + r.n, 0), correctSections: correct, missing,
      locatedMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN },
    };
    console.log(JSON.stringify(report, null, 2));
    writeFileSync(new URL(`results/${values.report}.json`, import.meta.url), JSON.stringify(report, null, 2) + '\n');
    writeFileSync(new URL(`results/${values.report}.md`, import.meta.url), [
      `# Feeder incident storm (${report.machine.date}, commit ${report.machine.commit})`, '',
      `${report.machine.cpu}, ${report.machine.cores} cores, Node ${report.machine.node}; ${report.machine.servers}`, '',
      '| feeders | indicators | tripped | device-time spread | sent at | incidents | right section | located p50 / p99 / max after the last trip arrives |',
      '|---|---|---|---|---|---|---|---|',
      `| ${FEEDERS} | ${all.length} | ${sends.length} (${((100 * sends.length) / all.length).toFixed(1)} %) | ${values.minutes} min | ${SPEED}x | ${report.incidents} | ${correct} of ${FEEDERS} | ${report.locatedMs.p50.toFixed(0)} / ${report.locatedMs.p99.toFixed(0)} / ${report.locatedMs.max.toFixed(0)} ms |`, '',
    ].join('\n'));
  } finally {
    await worker.stop();
    await pipe.stop();
    await transport.close();
    await db.drop();
  }
}

main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
