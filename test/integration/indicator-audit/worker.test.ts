// Indicators that audit themselves, end to end at small scale (issue 43 point 4): the simulator's feeders
// (simulator/feeder-faults.ts, two feeders of 50 with a dead indicator on one and a phase-mislabelled one on the
// other) imported with the import's code, their check-ins through the real stages into Postgres, the incident
// worker stepping as time passes, the findings read and dismissed through the API.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import { startIncidentWorker, type IncidentWorker } from '../../../incidents/worker.js';
import { recordIndicatorEvidence } from '../../../indicator-audit/record.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { startTestPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { importDemoData } from '../../../support/reference-data.js';
import { feederScenario, incidentMessages, type FeederIncident, type FeederScenario } from '../../../simulator/feeder-faults.js';
import { JWT_SECRET, login } from '../api/seeded-api.js';
import { withTransaction } from '../../../db/transaction.js';
import { lineDevices } from '../../../incidents/store.js';
import { DEFAULT_FLOOR_S } from '../../../domain/checkin-clock.js';
import { classWordsIn, setMasked } from '../masking/every-class.js';

let db: TestDatabase;
let transport: Transport;
let pipe: TestPipeline;
let worker: IncidentWorker;
let app: Hono;
let clock = 0;
const scenario: FeederScenario = feederScenario({ feeders: 2, dead: true, mislabelled: true, noise: false, startTime: Date.now() - 4 * 86_400_000 });
const eventIds = new Map<string, number>();
const pathIncidents = new Map<string, number>([[scenario.dead!, 0], [scenario.mislabelled!, 0]]);
const closed: FeederIncident[] = [];

type Finding = { id: number; IMEINumber: string; kind: string; title: string; evidence: { incidentId: number; verdict: string; otherPhase: boolean }[]; dismissed: unknown; agreement: Record<string, number>; raisedAt: string };

async function findings(user: 'northAdmin' | 'northEast' | 'southAdmin', query = ''): Promise<Finding[]> {
  const res = await app.request(`/api/indicator-audit/findings${query}`, { headers: { authorization: `Bearer ${await login(app, user)}` } });
  assert.is(res.status, 200, await res.clone().text());
  return ((await res.json()) as { data: Finding[] }).data;
}

/** One incident of the scenario: its trips, a step; every device's next check-in, a step (restored); a step a window later (closed). */
async function play(i: FeederIncident): Promise<void> {
  const feed = async (messages: object[]) => {
    await pipe.feed(messages.map((m, n) => ({ name: `i${i.seq}-${n}.json`, body: JSON.stringify(m) })));
    await pipe.drain();
  };
  const m = incidentMessages(i, eventIds);
  await feed(m.trips);
  clock = i.at + 2 * 60_000;
  await worker.runOnce();
  await feed(m.after);
  clock = i.at + 31 * 60_000;
  await worker.runOnce();
  clock = i.at + 34 * 60_000;
  await worker.runOnce();
  closed.push(i);
  for (const t of pathIncidents.keys()) if (i.path.includes(t) || i.plannedPath.includes(t)) pathIncidents.set(t, pathIncidents.get(t)! + 1);
}

test.before(async () => {
  db = await createTestDatabase('audit');
  await importDemoData(db.pool);
  await importReferenceData(db.pool, {
    powerLines: scenario.powerLines.map((l) => ({ Id: l.id, OrganizationID: 'north', name: l.name })),
    devices: scenario.devices.map((d, n) => ({
      IMEINumber: d.imei, OrganizationID: 'north', PowerLineID: d.powerLineId, Real_Name: d.name, Lat: 41.5 + n * 0.001, Long: -87.9,
      groups: ['north-east'], dnp3QueueAddress: 'dnp3.north', UpstreamIMEI: d.upstream, Phase: d.phase, Section: d.section,
    })),
  });
  transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  pipe = await startTestPipeline(transport, db.pool);
  worker = startIncidentWorker({ pool: db.pool, clock: () => new Date(clock) }, { loop: false });
  app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: null, accountCacheMs: 0 });
});
test.after(async () => {
  await pipe?.stop();
  await transport?.close();
  await db?.drop();
});

test('the dead and the mislabelled indicator are flagged within five incidents on their path, nothing else', async () => {
  while ([...pathIncidents.values()].some((n) => n < 5) && closed.length < 80) await play(scenario.next());
  assert.ok([...pathIncidents.values()].every((n) => n >= 5), `five incidents on each path within 80: ${JSON.stringify([...pathIncidents])}`);
  const { rows: [counts] } = await db.pool.query<{ closed: number; evidence: number }>(
    `select (select count(*)::int from incidents where status = 'closed') as closed, (select count(*)::int from indicator_evidence) as evidence`);
  assert.is(counts!.closed, closed.length, 'every incident played closed');
  const open = await findings('northAdmin');
  assert.equal(open.map((f) => [f.IMEINumber, f.kind]).sort(), [[scenario.dead!, 'failed-or-mis-set'], [scenario.mislabelled!, 'topology-or-phase']].sort());
  const dead = open.find((f) => f.IMEINumber === scenario.dead)!;
  assert.is(dead.title, 'likely failed or mis-set indicator');
  assert.ok(dead.evidence.length >= 3 && dead.evidence.every((e) => e.verdict === 'missed'), JSON.stringify(dead.evidence));
  const mislabelled = open.find((f) => f.IMEINumber === scenario.mislabelled)!;
  assert.ok(mislabelled.evidence.some((e) => e.verdict === 'unconfirmed' && e.otherPhase), JSON.stringify(mislabelled.evidence));
  // Each evidence incident is a real incident of the indicator's line.
  const { rows } = await db.pool.query<{ id: string; PowerLineID: string }>('select id, "PowerLineID" from incidents where id = any($1::bigint[])', [dead.evidence.map((e) => e.incidentId)]);
  assert.equal(new Set(rows.map((r) => r.PowerLineID)), new Set(['FL0']));
});

test('reach: the group user sees them, another organisation does not', async () => {
  assert.is((await findings('northEast')).length, 2);
  assert.is((await findings('southAdmin')).length, 0);
});

test('a masked organisation reads its findings with no fault class in them', async () => {
  await setMasked(db, true);
  try {
    for (const user of ['northAdmin', 'northEast'] as const) {
      const list = await findings(user, '?state=all');
      assert.is(list.length, 2);
      assert.equal(classWordsIn(JSON.stringify(list)), []);
      // The audit reads permanent incidents only: evidence, counts or exact times would name them.
      for (const f of list) {
        assert.equal(Object.keys(f).filter((k) => ['evidence', 'agreement', 'contradictions', 'considered'].includes(k)), [], `${user}: ${JSON.stringify(f)}`);
        assert.match(f.raisedAt, /T00:00:00\.000Z$/, `${user}: raisedAt is a day`);
      }
    }
  } finally {
    await setMasked(db, false);
  }
});

test('a replayed close adds no evidence twice and changes no finding', async () => {
  const before = (await db.pool.query('select "IMEINumber", incident_id, verdict from indicator_evidence order by 1, 2')).rows;
  const findingsBefore = (await db.pool.query('select id, kind, incidents, updated_at from indicator_findings order by id')).rows;
  const { rows: incidents } = await db.pool.query<{ id: string; PowerLineID: string; kind: 'permanent'; first_trip_at: Date; last_trip_at: Date }>('select * from incidents order by id');
  for (const i of incidents) {
    const { rows: tripped } = await db.pool.query<{ IMEINumber: string }>('select "IMEINumber" from incident_devices where incident_id = $1', [i.id]);
    await withTransaction(db.pool, async (client) => recordIndicatorEvidence(client, {
      id: Number(i.id), organizationId: 'north', powerLineId: i.PowerLineID, kind: i.kind, located: true, tripped: tripped.map((t) => t.IMEINumber),
      firstTripAt: i.first_trip_at.getTime(), lastTripAt: i.last_trip_at.getTime(), lineDevices: await lineDevices(client, [i.PowerLineID]),
      now: new Date(clock + 3_600_000), clockLimits: { floorS: DEFAULT_FLOOR_S, ceilingS: 26 * 3600 },
    }));
  }
  assert.equal((await db.pool.query('select "IMEINumber", incident_id, verdict from indicator_evidence order by 1, 2')).rows, before);
  assert.equal((await db.pool.query('select id, kind, incidents, updated_at from indicator_findings order by id')).rows, findingsBefore);
});

test('dismiss: admin only, with a reason, audited; it does not come back for the same evidence, only for new', async () => {
  const [dead] = (await findings('northAdmin')).filter((f) => f.IMEINumber === scenario.dead);
  const post = async (user: 'northAdmin' | 'northEast', body: unknown, id = dead!.id) => app.request(`/api/indicator-audit/findings/${id}/dismiss`, {
    method: 'POST', headers: { authorization: `Bearer ${await login(app, user)}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  assert.is((await post('northEast', { reason: 'replaced' })).status, 403);
  const noReason = await post('northAdmin', {});
  assert.is(noReason.status, 400);
  assert.match(((await noReason.json()) as { error: { message: string } }).error.message, /^"reason" is required/);
  assert.is((await post('northAdmin', { reason: 'x', extra: 1 })).status, 400);
  assert.is((await post('northAdmin', { reason: 'x' }, 999_999)).status, 404);
  const ok = await post('northAdmin', { reason: 'indicator replaced on 2026-11-27, work order 4411' });
  assert.is(ok.status, 200);
  const { rows: [audit] } = await db.pool.query<{ dismissed_by: string; dismiss_reason: string; dismissed_at: Date | null }>('select dismissed_by, dismiss_reason, dismissed_at from indicator_findings where id = $1', [dead!.id]);
  assert.equal([audit!.dismissed_by, audit!.dismiss_reason, audit!.dismissed_at !== null], ['admin@north.example', 'indicator replaced on 2026-11-27, work order 4411', true]);
  assert.is((await post('northAdmin', { reason: 'again' })).status, 404, 'an already dismissed finding');
  assert.equal((await findings('northAdmin')).map((f) => f.IMEINumber), [scenario.mislabelled], 'the dismissed one is no longer open');
  assert.equal((await findings('northAdmin', '?state=dismissed')).map((f) => f.id), [dead!.id]);

  // More incidents elsewhere on the line, none on the dead indicator's path: nothing new about it, no finding.
  const deadPathBefore = pathIncidents.get(scenario.dead!)!;
  let played = 0;
  while (pathIncidents.get(scenario.dead!) === deadPathBefore && played < 20) {
    const i = scenario.next();
    if (i.path.includes(scenario.dead!) || i.plannedPath.includes(scenario.dead!)) {
      // Its next incidents still find it dead: new evidence, which alone may raise a new finding.
      await play(i);
      break;
    }
    await play(i);
    played++;
  }
  assert.not.ok((await findings('northAdmin')).some((f) => f.IMEINumber === scenario.dead), 'one new contradiction is not enough: the old evidence does not count again');
  while (pathIncidents.get(scenario.dead!)! < deadPathBefore + 5 && closed.length < 160) await play(scenario.next());
  const again = (await findings('northAdmin')).find((f) => f.IMEINumber === scenario.dead);
  assert.ok(again && again.id !== dead!.id, 'new evidence raises a new finding');
  assert.ok(again.evidence.every((e) => !dead!.evidence.some((d) => d.incidentId === e.incidentId)), 'with only the new incidents as evidence');
});

test.run();
