// When a hot spot ends and comes back (docs/decisions.md#hot-spots-and-chattering-alarms; review L1 and L3): the
// incident step's hot-spot side (incidents/recurring-section.ts) against the real database, on a controlled clock,
// over incidents written as the incident worker writes them. An open alarm stores when it can next end, and a
// step judges only the alarms due; an incident written in its section judges it at once; a hot spot that ended
// comes back with a new alarm even when its newest incident is the same (an older incident written late).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTransaction } from '../../../db/transaction.js';
import { RECURRING_SECTION } from '../../../domain/alarm-kinds.js';
import type { FaultedSection } from '../../../domain/faulted-section.js';
import { endRecurringSections, raiseRecurringSections } from '../../../incidents/recurring-section.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { IMEI, topologyFile } from './feeder.js';

const test = suite('hot-spot ends and returns');
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const LINE = 'north-F9';
const SECTION: FaultedSection = { phase: 'A', from: { imei: IMEI.LA1, name: 'F9 LA1' }, to: [], spans: [], label: 'Lateral A' } as FaultedSection;
let db: TestDatabase;

/** A closed incident in lateral A's section, first tripped `daysAgo` before NOW (device time); its id. */
async function incident(daysAgo: number, kind = 'momentary'): Promise<number> {
  const at = new Date(NOW - daysAgo * DAY);
  const { rows: [r] } = await db.pool.query<{ id: string }>(
    `insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, closed_at, sections, updated_at)
     values ('north', $1, 'closed', $2, $3, $3, $3, $3, $4, $3) returning id`, [LINE, kind, at, JSON.stringify([SECTION])]);
  return Number(r!.id);
}
/** The incident step's hot-spot side at `atMs`, after an incident of the section was written (or none). */
async function step(atMs: number, wrote: boolean): Promise<void> {
  await withTransaction(db.pool, async (client) => {
    await endRecurringSections(client, new Date(atMs));
    if (wrote) await raiseRecurringSections(client, { organizationId: 'north', powerLineId: LINE, sections: [SECTION], now: new Date(atMs) });
  });
}
const hotSpots = async () => (await db.pool.query<{ id: string; episode: string; cleared: boolean; next_end_at: Date | null }>(
  `select id, episode, cleared_at is not null as cleared, next_end_at from alarms where kind = $1 and "IMEINumber" = $2 order by id`, [RECURRING_SECTION, IMEI.LA1])).rows;

test.before(async () => {
  db = await createTestDatabase('hot_spot_ends');
  await importDemoData(db.pool);
  await importReferenceData(db.pool, topologyFile());
});
test.after(async () => { await db?.drop(); });

test('an open hot spot stores when it can next end, and steps before then leave it unjudged', async () => {
  await incident(29);
  await incident(20);
  await incident(10);
  await step(NOW, true);
  const [a] = await hotSpots();
  assert.ok(a && !a.cleared, 'raised by the third');
  // The oldest of the three leaves the window 30 days after its first trip: one day from now.
  assert.is(a!.next_end_at?.getTime(), NOW + DAY);
  // Steps before then read no incidents for it: a change made behind the worker's back (not through a step)
  // is not seen until the alarm is due.
  await db.pool.query(`update incidents set kind = 'permanent' where first_trip_at = $1`, [new Date(NOW - 20 * DAY)]);
  await step(NOW + DAY / 2, false);
  assert.not.ok((await hotSpots())[0]!.cleared, 'not due: not judged');
  await step(NOW + DAY, false);
  assert.ok((await hotSpots())[0]!.cleared, 'due: judged and ended');
  await db.pool.query(`update incidents set kind = 'momentary'`);
  await db.pool.query('delete from alarms');
});

test('an incident written in its section judges it at once: one that stopped counting ends it in that step', async () => {
  await step(NOW, true);
  const [a] = await hotSpots();
  assert.ok(a && !a.cleared);
  await db.pool.query(`update incidents set kind = 'permanent' where first_trip_at = $1`, [new Date(NOW - 20 * DAY)]);
  await step(NOW + 60_000, true);
  assert.ok((await hotSpots())[0]!.cleared, 'ended by the step that wrote the incident');
  await db.pool.query(`update incidents set kind = 'momentary'`);
  await db.pool.query('delete from alarms');
});

test('a hot spot that ended by time comes back with the same newest incident: an older incident written late', async () => {
  await step(NOW, true);
  assert.is((await hotSpots()).length, 1);
  // Two days on the oldest (29 days) has left the window: two remain, the alarm ends.
  await step(NOW + 2 * DAY, false);
  assert.ok((await hotSpots())[0]!.cleared, 'ended by time');
  // An incident of 15 days ago, written late (a backlog): three again, the newest still the one of 10 days ago.
  await incident(15);
  await step(NOW + 2 * DAY, true);
  const all = await hotSpots();
  assert.is(all.length, 2, `a new alarm: ${JSON.stringify(all.map((x) => x.episode))}`);
  assert.not.ok(all[1]!.cleared);
  assert.not.equal(all[1]!.episode, all[0]!.episode);
});

test.run();
