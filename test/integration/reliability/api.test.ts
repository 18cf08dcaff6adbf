// Reliability analytics (issue 43) through real Postgres: check-ins through the real stages, the incident worker
// keeping the day tables in its step's transaction, then GET /api/reliability/lines and /sections compared with
// an independent SQL computation from the raw incidents table (0 mismatches), including an incident that changes
// kind and section as trips join it, a replayed batch and a redelivered inbox; the masked organisation's answers
// without a class word (keys included); a group user sees only the lines of the user's groups; the migration's
// back-fill equals the same computation.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import type pg from 'pg';
import { createApp } from '../../../api/app.js';
import { startIncidentWorker, type IncidentWorker } from '../../../incidents/worker.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { ImportError } from '../../../reference-data/errors.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import { migrate } from '../../../db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { startTestPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { importDemoData } from '../../../support/reference-data.js';
import { JWT_SECRET, USERS } from '../api/seeded-api.js';
import { checkInAt, IMEI, topologyFile, type Name } from '../incidents/feeder.js';
import { classWordsIn } from '../masking/every-class.js';
import { expectedLines, expectedSections, INCIDENTS_BY_DAY } from '../../../support/reliability-truth.js';
import { applyReliabilityDelta } from '../../../incidents/store.js';
import { reliabilityDelta, type IncidentFacts } from '../../../reliability/contribution.js';

const test = suite('reliability analytics');
let db: TestDatabase;
let transport: Transport;
let pipe: TestPipeline;
let worker: IncidentWorker;
let app: Hono;

const DAY = 86_400_000;
// Four UTC days ending yesterday, each incident an hour into its day (device time).
const day0 = Math.floor(Date.now() / DAY) * DAY - 4 * DAY;
const dayText = (n: number) => new Date(day0 + n * DAY).toISOString().slice(0, 10);
const param = (n: number) => dayText(n).replaceAll('-', '');
const at = (n: number) => checkInAt(day0 + n * DAY + 3600_000);

// A second feeder whose every device is in group north-west: the east user never sees it.
const F8 = { H: '861000000008000', A: '861000000008010' };
const f8File = () => ({
  powerLines: [{ Id: 'north-F8', OrganizationID: 'north', name: 'Feeder 8' }],
  devices: [
    { IMEINumber: F8.H, OrganizationID: 'north', PowerLineID: 'north-F8', Real_Name: 'F8 H', Lat: 41.8, Long: -87.7, groups: ['north-west'], UpstreamIMEI: null, Phase: 'ABC', Section: 'F8 trunk' },
    { IMEINumber: F8.A, OrganizationID: 'north', PowerLineID: 'north-F8', Real_Name: 'F8 A', Lat: 41.81, Long: -87.7, groups: ['north-west'], UpstreamIMEI: F8.H, Phase: 'ABC', Section: null },
  ],
});
function f8CheckIn(base: number, imei: string, minutes: number, fault: number, events: { type: string; atMin: number }[] = []) {
  const m = at(0)('H', 0, 0);
  const body = JSON.parse(m.body) as { device_data: Record<string, unknown>; events: Record<string, unknown>[] };
  body.device_data.IMEINumber = imei;
  body.device_data.date = new Date(base + minutes * 60_000).toISOString();
  body.device_data.Ongoing_fault = fault;
  body.events = events.map((e, i) => ({ EventID: 9000 + Math.round(base / 60_000) % 100_000 + i, EventTimestamp: new Date(base + e.atMin * 60_000).toISOString(), EventType: e.type, PrefaultCurrent: 140, FaultCurrent: 812, RecoverCurrent: 0 }));
  return { name: `f8-${imei}-${minutes}.json`, body: JSON.stringify(body) };
}

async function feed(...messages: { name: string; body: string }[]): Promise<void> {
  for (const m of messages) await pipe.feed([m]);
  await pipe.drain();
}

async function token(user: { email: string; password: string }): Promise<string> {
  const res = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(user) });
  assert.is(res.status, 200);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

async function get(path: string, user: { email: string; password: string } = USERS.northAdmin): Promise<{ status: number; text: string; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await app.request(path, { headers: { authorization: `Bearer ${await token(user)}` } });
  const text = await res.text();
  return { status: res.status, text, body: /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : null };
}

/** Every field of the API's lines and sections that differs from the independent computation, for the period `from`..`to` (day numbers). */
async function mismatches(fromDay: number, toDay: number): Promise<string[]> {
  const span = toDay - fromDay + 1;
  const [from, to, pfrom, pto] = [dayText(fromDay), dayText(toDay), dayText(fromDay - span), dayText(fromDay - 1)];
  const out: string[] = [];
  const lines = await get(`/api/reliability/lines?from=${param(fromDay)}&to=${param(toDay)}`);
  assert.is(lines.status, 200, lines.text);
  assert.equal([lines.body.period.from, lines.body.period.to, lines.body.previousPeriod.from, lines.body.previousPeriod.to], [from, to, pfrom, pto]);
  const want = await expectedLines(db.pool, 'north', from, to, pfrom, pto);
  assert.equal(lines.body.data.map((l: { powerLineId: string }) => l.powerLineId).sort(), [...want.keys()].sort(), 'the same lines');
  for (const l of lines.body.data) {
    const w = want.get(l.powerLineId)!;
    for (const k of ['permanent', 'momentary', 'unknown', 'incidents', 'trippedIndicators', 'sections', 'repeatingSections'] as const) {
      if (l[k] !== w[k]) out.push(`line ${l.powerLineId} ${k}: api ${l[k]}, sql ${w[k]}`);
    }
    if (l.trend.previousIncidents !== w.previousIncidents) out.push(`line ${l.powerLineId} previous: api ${l.trend.previousIncidents}, sql ${w.previousIncidents}`);
    const sections = await get(`/api/reliability/sections?powerLine=${l.powerLineId}&from=${param(fromDay)}&to=${param(toDay)}`);
    const ws = await expectedSections(db.pool, 'north', l.powerLineId, from, to, pfrom, pto);
    assert.equal(sections.body.data.map((s: { imei: string }) => s.imei).sort(), [...ws.keys()].sort(), `the same sections of ${l.powerLineId}`);
    for (const s of sections.body.data) {
      const e = ws.get(s.imei)!;
      for (const k of ['permanent', 'momentary', 'unknown', 'incidents', 'trippedIndicators'] as const) {
        if (s[k] !== e[k]) out.push(`section ${s.imei} ${k}: api ${s[k]}, sql ${e[k]}`);
      }
      if (s.trend.previousIncidents !== e.previousIncidents) out.push(`section ${s.imei} previous: api ${s.trend.previousIncidents}, sql ${e.previousIncidents}`);
    }
  }
  return out;
}

/** The day tables as stored, and as the independent computation over every day makes them. */
async function tablesAndTruth(pool: pg.Pool = db.pool): Promise<{ stored: unknown[]; truth: unknown[] }> {
  const stored = (await pool.query(
    `select 'line' as t, "OrganizationID" as org, "PowerLineID" as line, '' as section, day::text, permanent, momentary, unknown, tripped_indicators from reliability_line_days
     union all
     select 'section', "OrganizationID", "PowerLineID", section_imei, day::text, permanent, momentary, unknown, tripped_indicators from reliability_section_days
     order by 1, 2, 3, 4, 5`)).rows;
  const truth = (await pool.query(
    `with i as (${INCIDENTS_BY_DAY}),
     s as (select distinct on (i.id, sec->'from'->>'imei') i.*, sec->'from'->>'imei' as section from i cross join lateral jsonb_array_elements(i.sections) sec)
     select 'line' as t, org, line, '' as section, day::text, count(*) filter (where kind = 'permanent')::int as permanent, count(*) filter (where kind = 'momentary')::int as momentary,
            count(*) filter (where kind = 'unknown')::int as unknown, sum(tripped)::int as tripped_indicators from i group by 1, 2, 3, 4, 5
     union all
     select 'section', org, line, section, day::text, count(*) filter (where kind = 'permanent')::int, count(*) filter (where kind = 'momentary')::int,
            count(*) filter (where kind = 'unknown')::int, sum(tripped)::int from s group by 1, 2, 3, 4, 5
     order by 1, 2, 3, 4, 5`)).rows;
  return { stored, truth };
}

test.before(async () => {
  db = await createTestDatabase('reliability');
  await importDemoData(db.pool);
  await db.pool.query(`update integrations set enabled = false where kind = 'multispeak'`);
  await importReferenceData(db.pool, topologyFile());
  await importReferenceData(db.pool, f8File());
  transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  pipe = await startTestPipeline(transport, db.pool);
  worker = startIncidentWorker({ pool: db.pool, windowMs: 120_000 }, { loop: false });
  app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: null, accountCacheMs: 0 });
});
test.after(async () => {
  await pipe?.stop();
  await transport?.close();
  await db?.drop();
});

const ALL: Name[] = ['H', 'T1', 'T2', 'LA1', 'LA2', 'LB1'];

test('an incident that turns from unknown on the trunk to permanent on lateral A moves its counts in the day tables', async () => {
  const c = at(0);
  await feed(...ALL.map((n) => c(n, 0, 0)), f8CheckIn(day0 + 3600_000, F8.H, 0, 0), f8CheckIn(day0 + 3600_000, F8.A, 0, 0));
  await worker.runOnce();
  // H alone with a class that says nothing of duration: unknown, below H.
  await feed(c('H', 10, 4, [{ type: 'Fault Like', atMin: 9.5 }]));
  await worker.runOnce();
  const one = await db.pool.query<{ kind: string; sections: { from: { imei: string } }[] }>('select kind, sections from incidents');
  assert.equal(one.rows.map((r) => [r.kind, r.sections.map((s) => s.from.imei)]), [['unknown', [IMEI.H]]]);
  let t = await tablesAndTruth();
  assert.equal(t.stored, t.truth);
  // T1 and LA1 join with permanent trips: permanent, on lateral A; the trunk's section loses its count.
  await feed(c('T1', 10.5, 4, [{ type: 'PFault', atMin: 9.6 }]), c('LA1', 10.5, 4, [{ type: 'PFault', atMin: 9.7 }]));
  await worker.runOnce();
  const two = await db.pool.query<{ kind: string; sections: { from: { imei: string } }[] }>('select kind, sections from incidents');
  assert.equal(two.rows.map((r) => [r.kind, r.sections.map((s) => s.from.imei)]), [['permanent', [IMEI.LA1]]]);
  t = await tablesAndTruth();
  assert.equal(t.stored, t.truth);
  assert.equal((await db.pool.query(`select section_imei, permanent, unknown from reliability_section_days`)).rows, [{ section_imei: IMEI.LA1, permanent: 1, unknown: 0 }]);
});

test('three more days of incidents; a replayed batch and a redelivered inbox change nothing; the API equals the SQL from raw incidents (0 mismatches)', async () => {
  // Day 1 and day 2: momentary on lateral B (it repeats); day 2 also a permanent on F8; day 3 an unknown below T2.
  for (const n of [1, 2]) {
    const c = at(n);
    await feed(c('H', 10, 4, [{ type: 'TFault', atMin: 9.5 }]), c('T1', 10, 4, [{ type: 'TFault', atMin: 9.5 }]), c('LB1', 10, 4, [{ type: 'TFault', atMin: 9.6 }]));
    await worker.runOnce();
  }
  const replay = [f8CheckIn(day0 + 2 * DAY + 3600_000, F8.H, 10, 4, [{ type: 'PFault', atMin: 9.5 }])];
  await feed(...replay);
  await worker.runOnce();
  await feed(at(3)('T2', 10, 4, [{ type: 'Overcurrent', atMin: 9.5 }]));
  await worker.runOnce();
  const before = await tablesAndTruth();
  assert.equal(before.stored, before.truth);
  assert.is((await db.pool.query('select count(*)::int as n from incidents')).rows[0].n, 5);

  // The same check-ins again (a redelivered Kafka batch): dedup drops them, nothing moves.
  await feed(...replay, at(3)('T2', 10, 4, [{ type: 'Overcurrent', atMin: 9.5 }]));
  await worker.runOnce();
  // The same fault events back in the inbox (as a redelivered persist would leave them, were they new): they
  // join the incidents they already belong to; the contribution is the same, so the tables do not move.
  await db.pool.query(`insert into incident_inbox ("IMEINumber", "EventID", "ReportedEventTimestamp", "EventTimestamp", "EventType")
                       select "IMEINumber", "EventID", "ReportedEventTimestamp", "EventTimestamp", "EventType" from event_records
                        where "IMEINumber" = any($1) and "EventType" in ('TFault', 'PFault', 'Overcurrent') and "EventTimestamp" >= $2`,
  [[IMEI.T2, F8.H], new Date(day0 + 2 * DAY)]);
  await worker.runOnce();
  await worker.runOnce();
  const after = await tablesAndTruth();
  assert.equal(after.stored, before.stored, 'replays moved nothing');
  assert.equal(after.stored, after.truth);

  const problems = [...await mismatches(0, 3), ...await mismatches(2, 3), ...await mismatches(3, 3), ...await mismatches(1, 1)];
  console.log(`reliability: API vs SQL from raw incidents, 4 periods: ${problems.length} mismatches`);
  assert.equal(problems, []);

  // The answer's shape: F9 first (4 incidents), lateral B repeats, the trend against the previous two days.
  const lines = (await get(`/api/reliability/lines?from=${param(2)}&to=${param(3)}`)).body;
  const f9 = lines.data.find((l: { powerLineId: string }) => l.powerLineId === 'north-F9');
  assert.equal({ rank: f9.rank, incidents: f9.incidents, momentary: f9.momentary, unknown: f9.unknown, trend: f9.trend }, { rank: 1, incidents: 2, momentary: 1, unknown: 1, trend: { previousIncidents: 2, change: 0, direction: 'same' } });
  const all = (await get(`/api/reliability/lines?from=${param(0)}&to=${param(3)}`)).body;
  assert.is(all.data.find((l: { powerLineId: string }) => l.powerLineId === 'north-F9').repeatingSections, 1);
  const sections = (await get(`/api/reliability/sections?powerLine=north-F9&from=${param(0)}&to=${param(3)}`)).body;
  assert.equal(sections.data[0], { ...sections.data[0], imei: IMEI.LB1, label: 'Lateral B', incidents: 2, momentary: 2, repeats: true });
  assert.is(sections.lastIncidents.length, 4);
  assert.match(all.note, 'not a customer interruption as IEEE 1366 defines');
});

test('bad parameters are a 400 naming the parameter; an unknown or foreign power line is a 404', async () => {
  for (const [url, parameter] of [
    ['/api/reliability/lines?from=20261301', 'from'], ['/api/reliability/lines?to=2026', 'to'], ['/api/reliability/lines?from=20260201&to=20260101', 'from'],
    ['/api/reliability/lines?from=19900101&to=20260101', 'from'], ['/api/reliability/lines?line=x', 'line'], ['/api/reliability/sections?powerLine=', 'powerLine'],
  ] as const) {
    const r = await get(url);
    assert.is(r.status, 400, url);
    assert.is(r.body.error.details.parameter, parameter, url);
    assert.not.match(r.text, /select|stack/i);
  }
  assert.is((await get('/api/reliability/sections?powerLine=south-F7')).status, 404, 'another organisation\'s line');
  assert.is((await get('/api/reliability/sections?powerLine=north-F8', USERS.northEast)).status, 404, 'a line outside the user\'s groups');
});

test('a group user sees only the lines of the user\'s groups (north-F9 has north-east devices; north-F8 none)', async () => {
  const lines = (await get(`/api/reliability/lines?from=${param(0)}&to=${param(3)}`, USERS.northEast)).body;
  assert.equal(lines.data.map((l: { powerLineId: string }) => l.powerLineId), ['north-F9']);
  const sections = (await get(`/api/reliability/sections?from=${param(0)}&to=${param(3)}`, USERS.northEast)).body;
  assert.ok(sections.data.length > 0 && sections.data.every((s: { powerLineId: string }) => s.powerLineId === 'north-F9'));
  // A section whose upstream indicator is outside the user's groups is listed without its IMEI or position.
  const lb1 = sections.data.find((s: { label: string }) => s.label === 'Lateral B');
  assert.equal([lb1.imei, lb1.Lat], [null, null], 'LB1 is in north-west');
  assert.ok(sections.lastIncidents.every((i: { powerLineId: string }) => i.powerLineId === 'north-F9'));
  const south = (await get(`/api/reliability/lines?from=${param(0)}&to=${param(3)}`, USERS.southAdmin)).body;
  assert.equal(south.data, [], 'another organisation sees none of north\'s lines');
});

test('a masked organisation reads incidents without the split by kind, and no class word anywhere in the answer, keys included', async () => {
  await db.pool.query(`update organizations set "MaskFaultDetails" = true where "OrganizationID" = 'north'`);
  try {
    for (const user of [USERS.northAdmin, USERS.northEast]) {
      for (const path of ['/api/reliability/lines', '/api/reliability/sections', '/api/reliability/sections?powerLine=north-F9']) {
        const r = await get(`${path}${path.includes('?') ? '&' : '?'}from=${param(0)}&to=${param(3)}`, user);
        assert.is(r.status, 200, path);
        assert.equal(classWordsIn(r.text), [], `${user.email} ${path}`);
        assert.not.match(r.text, /"unknown"/, 'no split at all');
        assert.ok(r.body.data.length > 0 && r.body.data.every((x: { incidents: number }) => x.incidents > 0), 'incidents are counted');
      }
    }
  } finally {
    await db.pool.query(`update organizations set "MaskFaultDetails" = false where "OrganizationID" = 'north'`);
  }
});

test('the import\'s optional SectionCustomers and SectionLengthKm give rates per 100 km and the customer estimate, labelled as observed by indicators', async () => {
  const file = topologyFile();
  const facts: Partial<Record<string, { SectionCustomers: number; SectionLengthKm: number }>> = {
    [IMEI.LB1]: { SectionCustomers: 120, SectionLengthKm: 4 }, [IMEI.LA1]: { SectionCustomers: 30, SectionLengthKm: 2.5 }, [IMEI.H]: { SectionCustomers: 0, SectionLengthKm: 3.5 },
  };
  const imported = { ...file, devices: file.devices.map((d) => ({ ...d, ...facts[d.IMEINumber] })) };
  try {
    await importReferenceData(db.pool, { devices: [{ ...imported.devices[0], SectionCustomers: -1, SectionLengthKm: 'far' }] });
    assert.unreachable('imported');
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
    assert.equal(err.problems.map((p) => p.path).sort(), ['devices[0].SectionCustomers', 'devices[0].SectionLengthKm']);
  }
  await importReferenceData(db.pool, imported);
  const sections = (await get(`/api/reliability/sections?powerLine=north-F9&from=${param(0)}&to=${param(3)}`)).body;
  const lb1 = sections.data.find((s: { imei: string }) => s.imei === IMEI.LB1);
  assert.equal([lb1.lengthKm, lb1.incidentsPer100Km, lb1.customers, lb1.customerIncidentsEstimate], [4, 50, 120, 240]);
  const t2 = sections.data.find((s: { label: string }) => s.label === 'below F9 T2');
  assert.equal([t2.lengthKm, t2.incidentsPer100Km, t2.customers, t2.customerIncidentsEstimate], [null, null, null, null]);
  const f9 = (await get(`/api/reliability/lines?from=${param(0)}&to=${param(3)}`)).body.data.find((l: { powerLineId: string }) => l.powerLineId === 'north-F9');
  // 4 incidents over 10 km of imported sections; customers: LB1's 2 incidents x 120 + LA1's 1 x 30.
  assert.equal([f9.lengthKm, f9.incidentsPer100Km, f9.customers, f9.customerIncidentsEstimate], [10, 40, 150, 270]);
  assert.match(sections.note, 'estimate observed by indicators');
  await importReferenceData(db.pool, file);
  assert.is((await get(`/api/reliability/lines?from=${param(0)}&to=${param(3)}`)).body.data.find((l: { powerLineId: string }) => l.powerLineId === 'north-F9').lengthKm, null, 'a file without them clears them');
});

test('a rolling upgrade: an incident reclassified, and one opened, by a worker of the release before the day tables: the next step subtracts what was applied, and the tables stay equal to the truth', async () => {
  const c = at(3);
  await feed(c('LA2', 300, 4, [{ type: 'PFault', atMin: 299.5 }]));
  await worker.runOnce();
  const id = (await db.pool.query<{ id: string }>(`select id from incidents order by id desc limit 1`)).rows[0]!.id;
  // The old release reclassifies it: the row changes, the day tables and the record of what was applied do not.
  await db.pool.query(`update incidents set kind = case kind when 'unknown' then 'permanent' else 'unknown' end where id = $1`, [id]);
  await feed(c('LA1', 300.5, 4, [{ type: 'PFault', atMin: 299.6 }]));
  await worker.runOnce();
  let t = await tablesAndTruth();
  assert.equal(t.stored, t.truth, 'after a change by the old release');
  // As if the old release had opened it after the migration: nothing of it in the tables, nothing recorded.
  const applied = (await db.pool.query<{ reliability_applied: IncidentFacts }>(`select reliability_applied from incidents where id = $1`, [id])).rows[0]!.reliability_applied;
  const client = await db.pool.connect();
  try {
    await applyReliabilityDelta(client, reliabilityDelta(applied, null));
  } finally {
    client.release();
  }
  await db.pool.query(`update incidents set reliability_applied = null where id = $1`, [id]);
  await feed(c('T1', 301, 4, [{ type: 'PFault', atMin: 299.7 }]));
  await worker.runOnce();
  t = await tablesAndTruth();
  assert.equal(t.stored, t.truth, 'after an incident the old release opened');
});

test('the migration\'s back-fill gives the same day tables as the worker kept', async () => {
  const kept = await tablesAndTruth();
  const other = await createTestDatabase('reliability_fill', { upTo: '0025' });
  try {
    // Copy the incidents (and the rows they reference) into a database before 0026, then migrate it.
    const copy = async (table: string, columns = '*') => {
      for (const row of (await db.pool.query(`select ${columns} from ${table}`)).rows) {
        await other.pool.query(`insert into ${table} ${columns === '*' ? '' : `(${columns})`} overriding system value
                                select ${columns} from jsonb_populate_record(null::${table}, $1)`, [JSON.stringify(row)]);
      }
    };
    await copy('organizations', '"OrganizationID", name');
    await copy('power_lines', '"Id", "OrganizationID", name');
    await copy('incidents');
    await copy('incident_devices');
    await migrate(other.pool);
    const filled = await tablesAndTruth(other.pool);
    assert.equal(filled.stored, kept.stored);
    assert.ok(kept.stored.length > 5);
  } finally {
    await other.drop();
  }
});

test.run();
