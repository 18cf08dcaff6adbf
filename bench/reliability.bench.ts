// Reliability reads at scale (issue 43, first "Done when" point): a seeded year of incidents on many power lines
// and devices, then GET /api/reliability/lines (the year) and /sections (a random line, the year) each at a
// constant rate through the open-loop generator (bench/open-loop.ts), p50/p99; then both routes compared with the
// independent SQL count of the raw incidents (support/reliability-truth.ts): mismatches must be 0.
//
//   npm run bench:reliability -- [--lines 200] [--devices 10000] [--incidents 5000] [--rate 20] [--seconds 30] [--report reliability]
//
// The incidents are written by SQL (lines, kinds, first trips spread over the last 365 days, one or two sections,
// one to five tripped indicators each) and the day tables by the incident worker's own code
// (reliability/contribution.ts, incidents/store.ts applyReliabilityDelta), one incident at a time as a step
// would. Not seeded: the storage bench's 20M check-ins (the routes read the day tables, incidents and
// device_information only; check-ins would weigh on them only through shared buffers and the host).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createApp } from '../api/app.js';
import { listen } from '../api/server.js';
import { applyReliabilityDelta } from '../incidents/store.js';
import { importReferenceData } from '../reference-data/index.js';
import { reliabilityDelta, type ReliabilityKind } from '../reliability/contribution.js';
import { createTestDatabase } from '../support/database.js';
import { machineInfo } from '../support/machine.js';
import { importDemoData } from '../support/reference-data.js';
import { expectedLines, expectedSections } from '../support/reliability-truth.js';
import { progress } from './common.js';
import { openLoop } from './open-loop.js';

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '200' }, devices: { type: 'string', default: '10000' }, incidents: { type: 'string', default: '5000' },
    rate: { type: 'string', default: '20' }, seconds: { type: 'string', default: '30' }, report: { type: 'string', default: 'reliability' }, seed: { type: 'string', default: '43' },
  },
});
const LINES = Number(values.lines);
const PER_LINE = Math.max(2, Math.floor(Number(values.devices) / LINES));
const INCIDENTS = Number(values.incidents);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const DAY = 86_400_000;
const KINDS: ReliabilityKind[] = ['permanent', 'momentary', 'momentary', 'unknown'];

let rng = Number(values.seed);
const random = () => { rng = (rng * 1_103_515_245 + 12_345) % 2 ** 31; return rng / 2 ** 31; };
const pick = (n: number) => Math.floor(random() * n);
const imei = (l: number, i: number) => `86430${String(l).padStart(4, '0')}${String(i).padStart(6, '0')}`;
const line = (l: number) => `rel-${l}`;

async function main(): Promise<void> {
  const machine = machineInfo();
  progress(`reliability bench: ${INCIDENTS} incidents over ${LINES} lines and ${LINES * PER_LINE} devices; ${RATE} req/s for ${SECONDS} s per route (${machine.cpu}, ${machine.cores} cores)`);
  const db = await createTestDatabase('bench_reliability');
  try {
    await importDemoData(db.pool);
    const devices = [];
    for (let l = 0; l < LINES; l++) {
      for (let i = 0; i < PER_LINE; i++) devices.push({ IMEINumber: imei(l, i), OrganizationID: 'north', PowerLineID: line(l), Real_Name: `R${l} pole ${i}`, Lat: 40 + l * 0.01, Long: -88 + i * 0.001, SectionCustomers: 10 + pick(200), SectionLengthKm: 0.5 + pick(30) / 10 });
    }
    await importReferenceData(db.pool, { powerLines: Array.from({ length: LINES }, (_, l) => ({ Id: line(l), OrganizationID: 'north', name: `Reliability ${l}` })), devices });
    const now = Date.now();
    const t0 = Date.now();
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      for (let n = 0; n < INCIDENTS; n++) {
        // Skewed towards a few bad lines and sections, as field data is.
        const l = Math.floor(LINES * random() ** 2);
        const kind = KINDS[pick(KINDS.length)]!;
        const first = now - pick(365 * DAY);
        const sections = [...new Set(Array.from({ length: 1 + pick(2) }, () => Math.floor(PER_LINE * random() ** 2)))]
          .map((i) => ({ phase: 'ABC', from: { imei: imei(l, i), name: `R${l} pole ${i}` }, to: [], spans: [], label: `R${l} section ${i}` }));
        const tripped = [...new Set(Array.from({ length: 1 + pick(5) }, () => pick(PER_LINE)))];
        const { rows: [row] } = await client.query<{ id: string }>(
          `insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, closed_at, sections, updated_at)
           values ('north', $1, 'closed', $2, $3, $3, $3, $3, $4, $3) returning id`, [line(l), kind, new Date(first), JSON.stringify(sections)]);
        await client.query(`insert into incident_devices (incident_id, "IMEINumber", "EventType", tripped_at) select $1, unnest($2::text[]), 'PFault', $3`,
          [row!.id, tripped.map((i) => imei(l, i)), new Date(first)]);
        await applyReliabilityDelta(client, reliabilityDelta(null, { organizationId: 'north', powerLineId: line(l), kind, firstTripAt: first, sections, trippedIndicators: tripped.length }));
      }
      await client.query('commit');
    } finally {
      client.release();
    }
    await db.pool.query('analyze');
    progress(`seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

    const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: new TextEncoder().encode('bench-secret-bench-secret-bench-secret!!'), portalDir: null });
    const server = await listen(app, { port: 0, hostname: '127.0.0.1' });
    try {
      const login = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@north.example', password: 'north-Admin-Pass-1' }) });
      const token = ((await login.json()) as { accessToken: string }).accessToken;
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const [from, to] = [day(now - 364 * DAY), day(now)];
      const query = `from=${from.replaceAll('-', '')}&to=${to.replaceAll('-', '')}`;
      const headers = { authorization: `Bearer ${token}` };
      const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
      const lines = await openLoop({ url: url(`/api/reliability/lines?${query}`), rate: RATE, seconds: SECONDS, connections: 8, headers });
      progress(`lines    p50 ${lines.p50} ms  p99 ${lines.p99} ms  max ${lines.max} ms  ${lines.requests} requests, ${lines.non2xx} non-2xx, ${lines.errors} errors`);
      // One random line per run is enough to vary the plan; the worst (most incidents) line is the hardest.
      const sections = await openLoop({ url: url(`/api/reliability/sections?powerLine=${line(0)}&${query}`), rate: RATE, seconds: SECONDS, connections: 8, headers });
      progress(`sections p50 ${sections.p50} ms  p99 ${sections.p99} ms  max ${sections.max} ms  ${sections.requests} requests, ${sections.non2xx} non-2xx, ${sections.errors} errors`);

      // Equality with the independent SQL over the raw incidents, every line and every line's sections.
      const prevFrom = day(now - 729 * DAY);
      const prevTo = day(now - 365 * DAY);
      const get = async (path: string) => (await app.request(path, { headers })).json() as Promise<{ data: Record<string, any>[] }>; // eslint-disable-line @typescript-eslint/no-explicit-any
      const mismatches: string[] = [];
      const apiLines = await get(`/api/reliability/lines?${query}`);
      const want = await expectedLines(db.pool, 'north', from, to, prevFrom, prevTo);
      if (apiLines.data.length !== want.size) mismatches.push(`lines: api ${apiLines.data.length}, sql ${want.size}`);
      let sectionsCompared = 0;
      for (const l of apiLines.data) {
        const w = want.get(l.powerLineId as string);
        for (const k of ['permanent', 'momentary', 'unknown', 'incidents', 'trippedIndicators', 'sections', 'repeatingSections'] as const) if (l[k] !== w?.[k]) mismatches.push(`${l.powerLineId} ${k}`);
        if (l.trend.previousIncidents !== w?.previousIncidents) mismatches.push(`${l.powerLineId} previous`);
        const apiSections = await get(`/api/reliability/sections?powerLine=${l.powerLineId}&${query}`);
        const ws = await expectedSections(db.pool, 'north', l.powerLineId as string, from, to, prevFrom, prevTo);
        if (apiSections.data.length !== ws.size) mismatches.push(`${l.powerLineId} sections: api ${apiSections.data.length}, sql ${ws.size}`);
        for (const s of apiSections.data) {
          sectionsCompared++;
          const e = ws.get(s.imei as string);
          for (const k of ['permanent', 'momentary', 'unknown', 'incidents', 'trippedIndicators'] as const) if (s[k] !== e?.[k]) mismatches.push(`${s.imei} ${k}`);
        }
      }
      progress(`API vs SQL from raw incidents: ${apiLines.data.length} lines, ${sectionsCompared} sections, ${mismatches.length} mismatches${mismatches.length ? `: ${mismatches.slice(0, 5).join(', ')}` : ''}`);
      const result = {
        scale: { lines: LINES, devices: LINES * PER_LINE, incidents: INCIDENTS, checkIns: 0 }, rate: RATE, seconds: SECONDS, machine,
        lines: { p50: lines.p50, p99: lines.p99, max: lines.max, requests: lines.requests, non2xx: lines.non2xx, errors: lines.errors, targetP99Ms: 300 },
        sections: { p50: sections.p50, p99: sections.p99, max: sections.max, requests: sections.requests, non2xx: sections.non2xx, errors: sections.errors, targetP99Ms: 100 },
        mismatches: mismatches.length, linesCompared: apiLines.data.length, sectionsCompared,
      };
      writeFileSync(new URL(`results/${values.report}.json`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
      if (mismatches.length > 0) process.exitCode = 1;
    } finally {
      await server.close();
    }
  } finally {
    await db.drop();
  }
}

await main();
