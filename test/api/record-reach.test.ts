// reach.ts recordReach: which form a walk over records checks reach in, from how many records it visits and how
// many devices the caller reaches (docs/decisions.md#deep-pages-hash-the-reach). Both forms hold the same rule:
// the set is reachCondition's devices, so a group user's set still asks for the user's groups.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lateralReach, PROBE_JOIN, recordReach, SET_FROM_VISITS_PER_DEVICE } from '../../api/device-records/reach.js';
import { SqlParams } from '../../api/device-records/sql.js';

const admin = { userId: 1, org: 'north', role: 'admin' as const };
const user = { userId: 7, org: 'north', role: 'user' as const };

test('a walk that visits fewer records than a quarter of the devices in reach probes each record\'s device', () => {
  const r = recordReach(admin, new SqlParams(), { visited: 2_499, reached: 10_000 });
  assert.is(r.form, 'probe');
  assert.is(r.join, PROBE_JOIN);
  assert.equal(r.conditions.length, 1);
  assert.match(r.conditions[0]!, /^d\.deleted_at is null and d\."OrganizationID" = \$1::text$/);
});

test('from a quarter on, one set of the devices in reach, read once per statement (a CTE) and hashed (`is true` keeps it a filter)', () => {
  assert.is(SET_FROM_VISITS_PER_DEVICE, 0.25);
  const p = new SqlParams();
  const r = recordReach(user, p, { visited: 2_500, reached: 10_000 });
  assert.is(r.form, 'set');
  assert.is(r.join, '');
  assert.equal(r.conditions, ['(r."IMEINumber" in (select s."IMEINumber" from reach_set s)) is true']);
  assert.match(r.with ?? '', /^reach_set as materialized \(select d\."IMEINumber" from device_information d where d\.deleted_at is null and d\."OrganizationID" = \$1::text and exists \(/);
  assert.match(r.with ?? '', /ug\.user_id = \$2::bigint/);
  assert.equal(p.values, ['north', 7]);
});

test('a page that visits nothing beyond its own rows of a reach of unknown size probes', () => {
  assert.is(recordReach(admin, new SqlParams(), { visited: 50, reached: Infinity }).form, 'probe');
});

test('the lateral probe: each record\'s device looked up in a subquery on its IMEI, with the caller\'s whole reach rule; nothing left for the where', () => {
  const p = new SqlParams();
  const r = lateralReach(user, p);
  assert.is(r.form, 'lateral');
  assert.equal(r.conditions, []);
  assert.match(r.join, /^cross join lateral \(select 1 from device_information d where d\."IMEINumber" = r\."IMEINumber" and d\.deleted_at is null and d\."OrganizationID" = \$1::text and exists \(/);
  assert.match(r.join, /ug\.user_id = \$2::bigint\)\)\) limit 1\) reach$/);
  assert.equal(p.values, ['north', 7]);
});

test.run();
