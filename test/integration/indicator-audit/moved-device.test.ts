// The indicator audit of a device moved between organisations (review finding M3;
// docs/decisions.md#indicator-audit-per-organisation): evidence and findings are an organisation's and start at the
// device's joining it. The dead indicator's feeder is moved from north to south with the import's code, and back,
// while incidents run through the real stages, Postgres and the incident worker; the findings are read through the API.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../../api/app.js';
import { migrate } from '../../../db/migrate.js';
import { DRIFT_SETTINGS } from '../../../fleet/settings-drift.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { createTestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { JWT_SECRET, login } from '../api/seeded-api.js';
import { feederRig, type FeederRig } from './feeder-rig.js';

let rig: FeederRig;
let dead: string;
const LINE = 'FL0';

test.before(async () => {
  rig = await feederRig('audit_moved', { feeders: 2, dead: true });
  dead = rig.scenario.dead!;
  // South masks fault details in the fixture, and a masked caller reads no evidence: unmasked here to read it.
  await rig.db.pool.query(`update organizations set "MaskFaultDetails" = false where "OrganizationID" = 'south'`);
});
test.after(async () => {
  await rig?.stop();
});

/** Evidence against the dead indicator recorded in `org` since `since` (ms). */
async function contradictions(org: string, since = 0): Promise<number> {
  const { rows: [r] } = await rig.db.pool.query<{ n: number }>(
    `select count(*)::int as n from indicator_evidence where "IMEINumber" = $1 and "OrganizationID" = $2 and verdict <> 'confirmed' and recorded_at >= $3`,
    [dead, org, new Date(since)]);
  return r!.n;
}

/** Plays incidents until `org` holds `n` contradictions about the dead indicator since `since`. */
async function playUntil(org: string, n: number, since = 0): Promise<void> {
  for (let played = 0; (await contradictions(org, since)) < n; played++) {
    assert.ok(played < 120, `${n} contradictions in ${org} within 120 incidents`);
    await rig.play(rig.scenario.next());
  }
  assert.is(await contradictions(org, since), n, 'one incident adds at most one evidence row per indicator');
}

/**
 * Moves the dead indicator's feeder (the line and its 50 devices) to `org` with the import, dated at the worker's
 * clock: the import dates a move by the database's clock (now()), this suite's worker runs on the scenario's.
 */
async function moveFeeder(org: 'north' | 'south'): Promise<number> {
  const devices = rig.scenario.devices.filter((d) => d.powerLineId === LINE);
  await importReferenceData(rig.db.pool, {
    powerLines: [{ Id: LINE, OrganizationID: org, name: rig.scenario.powerLines.find((l) => l.id === LINE)!.name }],
    devices: devices.map((d, n) => ({
      IMEINumber: d.imei, OrganizationID: org, PowerLineID: LINE, Real_Name: d.name, Lat: 41.5 + n * 0.001, Long: -87.9,
      groups: org === 'north' ? ['north-east'] : [], UpstreamIMEI: d.upstream, Phase: d.phase, Section: d.section,
    })),
  });
  const since = rig.clock();
  const moved = await rig.db.pool.query(`update device_information set "OrganizationSince" = $1 where "PowerLineID" = $2 and "OrganizationID" = $3`, [new Date(since), LINE, org]);
  assert.is(moved.rowCount, devices.length);
  return since;
}

async function incidentsOf(ids: readonly number[]): Promise<string[]> {
  const { rows } = await rig.db.pool.query<{ OrganizationID: string }>('select "OrganizationID" from incidents where id = any($1::bigint[])', [ids]);
  assert.is(rows.length, ids.length, 'every evidence incident exists');
  return [...new Set(rows.map((r) => r.OrganizationID))];
}

let southFinding: { id: number; incidents: string[] };

test('moved to another organisation, the indicator is judged on the new organisation\'s incidents alone: none of the old one\'s reach its findings', async () => {
  // Two contradictions in north: not yet a finding (three are needed).
  await playUntil('north', 2);
  assert.not.ok((await rig.findings('northAdmin')).some((f) => f.IMEINumber === dead), 'north: two contradictions raise nothing');
  const since = await moveFeeder('south');

  // One contradiction in south: with north's two it would be three; south's own one raises nothing.
  await playUntil('south', 1, since);
  const early = (await rig.findings('southAdmin', '?state=all')).filter((f) => f.IMEINumber === dead);
  assert.equal(early.map((f) => f.evidence.map((e) => e.incidentId)), [], 'south: no finding built from north\'s incidents');

  // Three in south: south's finding, with south's incidents as its evidence and south's evidence as its tally.
  await playUntil('south', 3, since);
  const [finding, ...more] = (await rig.findings('southAdmin')).filter((f) => f.IMEINumber === dead);
  assert.ok(finding && more.length === 0, 'south: one open finding about the dead indicator');
  assert.is(finding.kind, 'failed-or-mis-set');
  assert.equal(await incidentsOf(finding.evidence.map((e) => e.incidentId)), ['south'], 'its evidence names south\'s incidents only');
  const { rows: [tally] } = await rig.db.pool.query<{ n: number }>(
    `select count(*)::int as n from indicator_evidence where "IMEINumber" = $1 and "OrganizationID" = 'south'`, [dead]);
  assert.is(Object.values(finding.agreement).reduce((a, b) => a + b, 0), tally!.n, 'its tally counts south\'s evidence only');
  assert.is((await rig.findings('northAdmin', '?state=all')).filter((f) => f.IMEINumber === dead).length, 0, 'north: nothing about a device it no longer holds');
  const { rows: [row] } = await rig.db.pool.query<{ incidents: string[] }>('select incidents from indicator_findings where id = $1', [finding.id]);
  southFinding = { id: finding.id, incidents: row!.incidents };
});

test('moved back, the old organisation starts again from the return: its evidence from before does not count, and the other organisation\'s finding does not follow the device', async () => {
  const since = await moveFeeder('north');
  // One contradiction since the return: with the two from before the move it would be three.
  await playUntil('north', 1, since);
  assert.not.ok((await rig.findings('northAdmin', '?state=all')).some((f) => f.IMEINumber === dead), 'north: its evidence from before the move does not count again');
  const { rows: [kept] } = await rig.db.pool.query<{ incidents: string[]; OrganizationID: string }>('select incidents, "OrganizationID" from indicator_findings where id = $1', [southFinding.id]);
  assert.equal(kept, { incidents: southFinding.incidents, OrganizationID: 'south' }, 'south\'s finding takes none of north\'s incidents');
  assert.is((await rig.findings('southAdmin', '?state=all')).filter((f) => f.IMEINumber === dead).length, 0, 'south: nothing about a device it no longer holds');

  // Three since the return: north's own finding, of north's incidents since the return; south's is closed, saying why.
  await playUntil('north', 3, since);
  const [finding] = (await rig.findings('northAdmin')).filter((f) => f.IMEINumber === dead);
  assert.ok(finding, 'north: a finding from the evidence since the return');
  assert.equal(await incidentsOf(finding.evidence.map((e) => e.incidentId)), ['north']);
  const { rows: recent } = await rig.db.pool.query<{ incident_id: string }>(
    `select incident_id from indicator_evidence where "IMEINumber" = $1 and "OrganizationID" = 'north' and recorded_at >= $2 and verdict <> 'confirmed'`, [dead, new Date(since)]);
  assert.equal(finding.evidence.map((e) => e.incidentId).sort(), recent.map((r) => Number(r.incident_id)).sort(), 'its evidence is the incidents since the return');
  const { rows: [closed] } = await rig.db.pool.query<{ dismissed_by: string; dismiss_reason: string }>('select dismissed_by, dismiss_reason from indicator_findings where id = $1', [southFinding.id]);
  assert.equal(closed, { dismissed_by: 'faultline', dismiss_reason: 'the indicator left the organisation' });
});

test('an upgrade: a finding judged before migration 0031 with another organisation\'s incidents keeps only its own, is closed saying why, and reads none of the others', async () => {
  const old = await createTestDatabase('audit_0029', { upTo: '0029' });
  try {
    // The release before imported with its own importer; this one also writes the group profile (migration 0036),
    // so those columns stand in for the import and are gone again before the upgrade adds them.
    const profile = DRIFT_SETTINGS.map((s) => `"${s.profile}"`);
    await old.pool.query(`alter table groups ${profile.map((c, i) => `add column ${c} ${DRIFT_SETTINGS[i]!.type === 'number' ? 'double precision' : 'text'}`).join(', ')}`);
    await importDemoData(old.pool);
    await old.pool.query(`alter table groups ${profile.map((c) => `drop column ${c}`).join(', ')}`);
    await old.pool.query(`update organizations set "MaskFaultDetails" = false`);
    const imei = '861100000000000'; // a south device, moved there from north
    await old.pool.query(`update device_information set "OrganizationSince" = now() - interval '2 days' where "IMEINumber" = $1`, [imei]);
    const line = (await old.pool.query<{ PowerLineID: string }>('select "PowerLineID" from device_information where "IMEINumber" = $1', [imei])).rows[0]!.PowerLineID;
    const incident = async (org: string, daysAgo: number) => Number((await old.pool.query<{ id: string }>(
      `insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, updated_at, closed_at)
       values ($1, (select "Id" from power_lines where "OrganizationID" = $1 order by "Id" limit 1), 'closed', 'permanent', now() - $2 * interval '1 day', now() - $2 * interval '1 day', now(), now(), now())
       returning id`, [org, daysAgo])).rows[0]!.id);
    const north = [await incident('north', 5), await incident('north', 4)];
    const south = await incident('south', 1);
    // As the release before recorded them: each row its incident's organisation, the finding judged on all three.
    for (const [id, org, daysAgo] of [[north[0], 'north', 5], [north[1], 'north', 4], [south, 'south', 1]] as const) {
      await old.pool.query(`insert into indicator_evidence (incident_id, "IMEINumber", "OrganizationID", "PowerLineID", verdict, other_phase, recorded_at)
                            values ($1, $2, $3, 'x', 'missed', false, now() - $4 * interval '1 day')`, [id, imei, org, daysAgo]);
    }
    const finding = (await old.pool.query<{ id: string }>(
      `insert into indicator_findings ("OrganizationID", "IMEINumber", "PowerLineID", kind, incidents, contradictions, considered, raised_at, updated_at)
       values ('south', $1, $2, 'failed-or-mis-set', $3::bigint[], 3, 3, now() - interval '1 day', now() - interval '1 day') returning id`, [imei, line, [...north, south]])).rows[0]!.id;

    await migrate(old.pool);
    const { rows: [row] } = await old.pool.query('select incidents, contradictions, dismissed_by, dismiss_reason from indicator_findings where id = $1', [finding]);
    assert.equal(row, {
      incidents: [String(south)], contradictions: 1, dismissed_by: 'faultline (migration 0031)',
      dismiss_reason: 'judged with incidents of another organisation (the indicator moved); judged again from this organisation\'s evidence',
    });
    const app = createApp({ readiness: {}, pool: old.pool, jwtSecret: JWT_SECRET, portalDir: null, accountCacheMs: 0 });
    const res = await app.request('/api/indicator-audit/findings?state=all', { headers: { authorization: `Bearer ${await login(app, 'southAdmin')}` } });
    const text = await res.text();
    assert.is(res.status, 200, text);
    const [listed] = (JSON.parse(text) as { data: { id: number; evidence: { incidentId: number }[]; agreement: Record<string, number> }[] }).data;
    assert.equal([listed!.id, listed!.evidence.map((e) => e.incidentId), listed!.agreement], [Number(finding), [south], { confirmed: 0, missed: 1, unconfirmed: 0 }]);
  } finally {
    await old.drop();
  }
});

test.run();
