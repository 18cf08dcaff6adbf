// Indicators that audit themselves, end to end at small scale (issue 43 point 4): the simulator's feeders
// (simulator/feeder-faults.ts, two feeders of 50 with a dead indicator on one and a phase-mislabelled one on the
// other) imported with the import's code, their check-ins through the real stages into Postgres, the incident
// worker stepping as time passes, the findings read and dismissed through the API.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recordIndicatorEvidence } from '../../../indicator-audit/record.js';
import { withTransaction } from '../../../db/transaction.js';
import { lineDevices } from '../../../incidents/store.js';
import { DEFAULT_FLOOR_S } from '../../../domain/checkin-clock.js';
import { classWordsIn, setMasked } from '../masking/every-class.js';
import { login } from '../api/seeded-api.js';
import { feederRig, type FeederRig } from './feeder-rig.js';

let rig: FeederRig;

test.before(async () => {
  rig = await feederRig('audit', { feeders: 2, dead: true, mislabelled: true });
});
test.after(async () => {
  await rig?.stop();
});

test('the dead and the mislabelled indicator are flagged within five incidents on their path, nothing else', async () => {
  while ([...rig.pathIncidents.values()].some((n) => n < 5) && rig.closed.length < 80) await rig.play(rig.scenario.next());
  assert.ok([...rig.pathIncidents.values()].every((n) => n >= 5), `five incidents on each path within 80: ${JSON.stringify([...rig.pathIncidents])}`);
  const { rows: [counts] } = await rig.db.pool.query<{ closed: number; evidence: number }>(
    `select (select count(*)::int from incidents where status = 'closed') as closed, (select count(*)::int from indicator_evidence) as evidence`);
  assert.is(counts!.closed, rig.closed.length, 'every incident played closed');
  const open = await rig.findings('northAdmin');
  assert.equal(open.map((f) => [f.IMEINumber, f.kind]).sort(), [[rig.scenario.dead!, 'failed-or-mis-set'], [rig.scenario.mislabelled!, 'topology-or-phase']].sort());
  const dead = open.find((f) => f.IMEINumber === rig.scenario.dead)!;
  assert.is(dead.title, 'likely failed or mis-set indicator');
  assert.ok(dead.evidence.length >= 3 && dead.evidence.every((e) => e.verdict === 'missed'), JSON.stringify(dead.evidence));
  const mislabelled = open.find((f) => f.IMEINumber === rig.scenario.mislabelled)!;
  assert.ok(mislabelled.evidence.some((e) => e.verdict === 'unconfirmed' && e.otherPhase), JSON.stringify(mislabelled.evidence));
  // Each evidence incident is a real incident of the indicator's line.
  const { rows } = await rig.db.pool.query<{ id: string; PowerLineID: string }>('select id, "PowerLineID" from incidents where id = any($1::bigint[])', [dead.evidence.map((e) => e.incidentId)]);
  assert.equal(new Set(rows.map((r) => r.PowerLineID)), new Set(['FL0']));
});

test('reach: the group user sees them, another organisation does not', async () => {
  assert.is((await rig.findings('northEast')).length, 2);
  assert.is((await rig.findings('southAdmin')).length, 0);
});

test('a masked organisation reads its findings with no fault class in them', async () => {
  await setMasked(rig.db, true);
  try {
    for (const user of ['northAdmin', 'northEast'] as const) {
      const list = await rig.findings(user, '?state=all');
      assert.is(list.length, 2);
      assert.equal(classWordsIn(JSON.stringify(list)), []);
      // The audit reads permanent incidents only: evidence, counts or exact times would name them.
      for (const f of list) {
        assert.equal(Object.keys(f).filter((k) => ['evidence', 'agreement', 'contradictions', 'considered'].includes(k)), [], `${user}: ${JSON.stringify(f)}`);
        assert.match(f.raisedAt, /T00:00:00\.000Z$/, `${user}: raisedAt is a day`);
      }
    }
  } finally {
    await setMasked(rig.db, false);
  }
});

test('a masked organisation\'s list does not compute the evidence and tallies it drops: it answers the same with the evidence table out of reach', async () => {
  await setMasked(rig.db, true);
  const answers = async () => Promise.all((['northAdmin', 'northEast'] as const).map(async (user) => {
    const res = await rig.app.request('/api/indicator-audit/findings?state=all', { headers: { authorization: `Bearer ${await login(rig.app, user)}` } });
    return [res.status, await res.text()] as const;
  }));
  try {
    const before = await answers();
    assert.ok(before.every(([status]) => status === 200), JSON.stringify(before));
    // Renamed, the evidence cannot be read: a statement that still reads it fails (500), one that does not answers as before.
    await rig.db.pool.query('alter table indicator_evidence rename to indicator_evidence_out_of_reach');
    try {
      assert.equal(await answers(), before);
    } finally {
      await rig.db.pool.query('alter table indicator_evidence_out_of_reach rename to indicator_evidence');
    }
  } finally {
    await setMasked(rig.db, false);
  }
});

test('a replayed close adds no evidence twice and changes no finding', async () => {
  const before = (await rig.db.pool.query('select "IMEINumber", incident_id, verdict from indicator_evidence order by 1, 2')).rows;
  const findingsBefore = (await rig.db.pool.query('select id, kind, incidents, updated_at from indicator_findings order by id')).rows;
  const { rows: incidents } = await rig.db.pool.query<{ id: string; PowerLineID: string; kind: 'permanent'; first_trip_at: Date; last_trip_at: Date }>('select * from incidents order by id');
  for (const i of incidents) {
    const { rows: tripped } = await rig.db.pool.query<{ IMEINumber: string }>('select "IMEINumber" from incident_devices where incident_id = $1', [i.id]);
    await withTransaction(rig.db.pool, async (client) => recordIndicatorEvidence(client, {
      id: Number(i.id), organizationId: 'north', powerLineId: i.PowerLineID, kind: i.kind, located: true, tripped: tripped.map((t) => t.IMEINumber),
      firstTripAt: i.first_trip_at.getTime(), lastTripAt: i.last_trip_at.getTime(), lineDevices: await lineDevices(client, [i.PowerLineID]),
      now: new Date(rig.clock() + 3_600_000), clockLimits: { floorS: DEFAULT_FLOOR_S, ceilingS: 26 * 3600 },
    }));
  }
  assert.equal((await rig.db.pool.query('select "IMEINumber", incident_id, verdict from indicator_evidence order by 1, 2')).rows, before);
  assert.equal((await rig.db.pool.query('select id, kind, incidents, updated_at from indicator_findings order by id')).rows, findingsBefore);
});

test('dismiss: admin only, with a reason, audited; it does not come back for the same evidence, only for new', async () => {
  const [dead] = (await rig.findings('northAdmin')).filter((f) => f.IMEINumber === rig.scenario.dead);
  const post = async (user: 'northAdmin' | 'northEast', body: unknown, id = dead!.id) => rig.app.request(`/api/indicator-audit/findings/${id}/dismiss`, {
    method: 'POST', headers: { authorization: `Bearer ${await login(rig.app, user)}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  assert.is((await post('northEast', { reason: 'replaced' })).status, 403);
  const noReason = await post('northAdmin', {});
  assert.is(noReason.status, 400);
  assert.match(((await noReason.json()) as { error: { message: string } }).error.message, /^"reason" is required/);
  assert.is((await post('northAdmin', { reason: 'x', extra: 1 })).status, 400);
  assert.is((await post('northAdmin', { reason: 'x' }, 999_999)).status, 404);
  const ok = await post('northAdmin', { reason: 'indicator replaced on 2026-11-27, work order 4411' });
  assert.is(ok.status, 200);
  const { rows: [audit] } = await rig.db.pool.query<{ dismissed_by: string; dismiss_reason: string; dismissed_at: Date | null }>('select dismissed_by, dismiss_reason, dismissed_at from indicator_findings where id = $1', [dead!.id]);
  assert.equal([audit!.dismissed_by, audit!.dismiss_reason, audit!.dismissed_at !== null], ['admin@north.example', 'indicator replaced on 2026-11-27, work order 4411', true]);
  assert.is((await post('northAdmin', { reason: 'again' })).status, 404, 'an already dismissed finding');
  assert.equal((await rig.findings('northAdmin')).map((f) => f.IMEINumber), [rig.scenario.mislabelled], 'the dismissed one is no longer open');
  assert.equal((await rig.findings('northAdmin', '?state=dismissed')).map((f) => f.id), [dead!.id]);

  // More incidents elsewhere on the line, none on the dead indicator's path: nothing new about it, no finding.
  const deadPathBefore = rig.pathIncidents.get(rig.scenario.dead!)!;
  let played = 0;
  while (rig.pathIncidents.get(rig.scenario.dead!) === deadPathBefore && played < 20) {
    const i = rig.scenario.next();
    if (i.path.includes(rig.scenario.dead!) || i.plannedPath.includes(rig.scenario.dead!)) {
      // Its next incidents still find it dead: new evidence, which alone may raise a new finding.
      await rig.play(i);
      break;
    }
    await rig.play(i);
    played++;
  }
  assert.not.ok((await rig.findings('northAdmin')).some((f) => f.IMEINumber === rig.scenario.dead), 'one new contradiction is not enough: the old evidence does not count again');
  while (rig.pathIncidents.get(rig.scenario.dead!)! < deadPathBefore + 5 && rig.closed.length < 160) await rig.play(rig.scenario.next());
  const again = (await rig.findings('northAdmin')).find((f) => f.IMEINumber === rig.scenario.dead);
  assert.ok(again && again.id !== dead!.id, 'new evidence raises a new finding');
  assert.ok(again.evidence.every((e) => !dead!.evidence.some((d) => d.incidentId === e.incidentId)), 'with only the new incidents as evidence');
});

test.run();
