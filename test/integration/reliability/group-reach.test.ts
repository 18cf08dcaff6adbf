// Review L2: what a group user reads of the reliability sections beyond the user's reach. The line is seen
// whole (its counts and its sections, docs/decisions.md#reliability-analytics-issue-43-rel-core), but a section
// whose upstream indicator is outside the reach must not name it: its stored label is "below <name or IMEI>"
// unless the import gave a Section (docs/decisions.md#reliability-reads-paged-and-bounded). Real Postgres; the
// day rows written as the incident worker writes them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OUTSIDE_REACH_LABEL } from '../../../domain/section-reach.js';
import { seededApi, type SeededApi, type UserName } from '../api/seeded-api.js';

const test = suite('reliability reach of a group user');
let api: SeededApi;
const DAY = '2026-11-10';
const WINDOW = 'from=20261101&to=20261120';
// North-east (the group user's): ...000 on F12. North-west: ...400 and ...600 on F12, ...500 on F7.
const SECTIONS = [
  { line: 'north-F12', imei: '861000000000000', label: 'Lateral A', incidents: 3 },
  { line: 'north-F12', imei: '861000000000400', label: 'below North F12 Pole 44 Phase B', incidents: 2 },
  { line: 'north-F12', imei: '861000000000600', label: 'below 861000000000600', incidents: 1 },
  { line: 'north-F7', imei: '861000000000500', label: 'F7 west lateral', incidents: 4 },
];

interface Section { powerLineId: string; label: string; imei: string | null; incidents: number }
async function sections(user: UserName, query = WINDOW): Promise<{ text: string; data: Section[] }> {
  const res = await api.get(`/api/reliability/sections?${query}`, user);
  const text = await res.text();
  assert.is(res.status, 200, text.slice(0, 200));
  return { text, data: (JSON.parse(text) as { data: Section[] }).data };
}

test.before(async () => {
  api = await seededApi({ feed: false, app: { accountCacheMs: 0 } });
  // ...600 has no name (its label fell back to its IMEI); ...500 has the import's Section.
  await api.db.pool.query(`update device_information set "Real_Name" = null where "IMEINumber" = '861000000000600'`);
  await api.db.pool.query(`update device_information set "Section" = 'F7 west lateral' where "IMEINumber" = '861000000000500'`);
  for (const s of SECTIONS) {
    await api.db.pool.query(`insert into reliability_section_days ("OrganizationID", "PowerLineID", section_imei, day, label, permanent, tripped_indicators) values ('north', $1, $2, $3, $4, $5, $5)`,
      [s.line, s.imei, DAY, s.label, s.incidents]);
  }
});
test.after(async () => { await api?.close(); });

test('a group user reads the sections of the lines in reach, counted whole, without a label naming an indicator outside the reach', async () => {
  const east = await sections('northEast');
  for (const hidden of ['North F12 Pole 44', '861000000000400', '861000000000600', '861000000000500']) {
    assert.not.ok(east.text.includes(hidden), `the group user's answer names ${hidden}`);
  }
  const byCount = new Map(east.data.map((s) => [s.incidents, s]));
  assert.equal(east.data.map((s) => s.incidents).sort(), [1, 2, 3, 4], 'every section of the lines in reach is counted');
  assert.equal([byCount.get(3)!.label, byCount.get(3)!.imei], ['Lateral A', '861000000000000']);
  // The import's Section names a stretch of the line, not an indicator: it stands.
  assert.equal([byCount.get(4)!.label, byCount.get(4)!.imei], ['F7 west lateral', null]);
  const outside = [byCount.get(2)!, byCount.get(1)!];
  assert.ok(outside.every((s) => s.label.startsWith(OUTSIDE_REACH_LABEL) && s.imei === null), JSON.stringify(outside));
  assert.is(new Set(outside.map((s) => s.label)).size, 2, 'each row keeps a name of its own');
  assert.equal((await sections('northEast', `${WINDOW}&powerLine=north-F12`)).data.map((s) => s.label).filter((l) => l.includes('Pole')), []);
});

test('an admin reads every label as stored', async () => {
  const admin = await sections('northAdmin');
  assert.equal(admin.data.map((s) => s.label).sort(), SECTIONS.map((s) => s.label).sort());
});

test.run();
