// Review M4: an incident's cause history is paged and capped (api/incidents/cause.ts, cause-store.ts;
// docs/decisions.md#reliability-reads-paged-and-bounded). The detail and the recording answer carry the
// newest page and the cursor of the next; GET /api/incidents/:id/cause-history pages the rest by record id;
// beyond MAX_CAUSE_RECORDS a new record is a 409 naming the cap, and nothing is recorded. Real Postgres.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CAUSE_HISTORY_PAGE, MAX_CAUSE_RECORDS } from '../../../domain/incident-causes.js';
import { seededApi, type SeededApi, type UserName } from '../api/seeded-api.js';

const test = suite('incident cause history');
let api: SeededApi;
let incident: string;
const EAST_F12 = '861000000000000'; // in north-east, the group user's
const WEST_F12 = '861000000000400'; // in north-west

interface Change { id: number; cause: string; note: string | null; setBy: string }
interface Page { data: Change[]; next: number | null; limit: number }

const post = (id: string, user: UserName, body: unknown) => api.app.request(`/api/incidents/${id}/cause`, {
  method: 'POST', headers: { authorization: `Bearer ${api.tokens[user]}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
});
const records = async (id: string) => Number((await api.db.pool.query('select count(*) as n from incident_cause_changes where incident_id = $1', [id])).rows[0].n);

async function newIncident(imei: string): Promise<string> {
  const { rows: [row] } = await api.db.pool.query<{ id: string }>(
    `insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, updated_at)
     values ('north', 'north-F12', 'open', 'permanent', '2026-03-10T10:00:00Z', '2026-03-10T10:00:00Z', '2026-03-10T10:00:00Z', '2026-03-10T10:00:00Z') returning id`);
  await api.db.pool.query('insert into incident_devices (incident_id, "IMEINumber", "EventType", tripped_at) values ($1, $2, $3, $4)', [row!.id, imei, 'PFault', '2026-03-10T10:00:00Z']);
  return String(row!.id);
}

/** `n` records as the route writes them, notes numbered from 1 (oldest) to n. */
async function recorded(id: string, n: number): Promise<void> {
  await api.db.pool.query(`insert into incident_cause_changes (incident_id, cause, note, set_by, set_at)
    select $1, 'vegetation', 'record ' || k, 'east@north.example', timestamptz '2026-03-11T00:00:00Z' + k * interval '1 minute' from generate_series(1, $2::int) k`, [id, n]);
}

test.before(async () => {
  api = await seededApi({ feed: false, app: { accountCacheMs: 0 } });
  await api.db.pool.query(`update device_information set "OrganizationSince" = '-infinity'`);
  incident = await newIncident(EAST_F12);
  await recorded(incident, 45);
});
test.after(async () => { await api?.close(); });

test('the detail carries the newest page and a cursor; the history route pages the rest, newest first, each record once', async () => {
  const detail = (await (await api.get(`/api/incidents/${incident}`, 'northEast')).json()) as { causeHistory: Change[]; causeHistoryNext: number | null; cause: string };
  assert.is(detail.causeHistory.length, CAUSE_HISTORY_PAGE.default);
  assert.is(detail.causeHistory[0]!.note, 'record 45');
  assert.is(detail.causeHistoryNext, detail.causeHistory[CAUSE_HISTORY_PAGE.default - 1]!.id);
  const notes = detail.causeHistory.map((h) => h.note);
  for (let before = detail.causeHistoryNext; before !== null;) {
    const res = await api.get(`/api/incidents/${incident}/cause-history?limit=10&before=${before}`, 'northEast');
    assert.is(res.status, 200);
    const page = (await res.json()) as Page;
    assert.ok(page.data.length <= 10);
    notes.push(...page.data.map((h) => h.note));
    before = page.next;
  }
  assert.equal(notes, Array.from({ length: 45 }, (_, i) => `record ${45 - i}`));
  const first = (await (await api.get(`/api/incidents/${incident}/cause-history`, 'northAdmin')).json()) as Page;
  assert.equal([first.data.length, first.limit], [CAUSE_HISTORY_PAGE.default, CAUSE_HISTORY_PAGE.default]);
});

test('a page larger than the most, a bad cursor or an incident outside the reach is refused, naming the problem', async () => {
  for (const [query, parameter] of [[`limit=${CAUSE_HISTORY_PAGE.max + 1}`, 'limit'], ['limit=0', 'limit'], ['before=x', 'before'], ['after=3', 'after']] as const) {
    const res = await api.get(`/api/incidents/${incident}/cause-history?${query}`, 'northEast');
    assert.is(res.status, 400, query);
    assert.is(((await res.json()) as { error: { details: { parameter: string } } }).error.details.parameter, parameter, query);
  }
  const west = await newIncident(WEST_F12);
  await recorded(west, 1);
  assert.is((await api.get(`/api/incidents/${west}/cause-history`, 'northEast')).status, 404);
  assert.is((await api.get(`/api/incidents/${west}/cause-history`, 'southAdmin')).status, 404);
  assert.is((await api.get(`/api/incidents/${west}/cause-history`, 'northAdmin')).status, 200);
});

test(`an incident keeps at most ${MAX_CAUSE_RECORDS} causes: the next is a 409 naming the cap, and nothing is recorded`, async () => {
  const full = await newIncident(EAST_F12);
  await recorded(full, MAX_CAUSE_RECORDS - 1);
  let res = await post(full, 'northEast', { cause: 'animal' });
  assert.is(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { cause: string; history: Change[]; historyNext: number | null };
  assert.is(body.cause, 'animal');
  assert.is(body.history.length, CAUSE_HISTORY_PAGE.default);
  assert.ok(body.historyNext !== null);
  assert.is(await records(full), MAX_CAUSE_RECORDS);
  res = await post(full, 'northAdmin', { cause: 'weather' });
  assert.is(res.status, 409);
  const error = ((await res.json()) as { error: { code: string; message: string; details: { maxRecords: number } } }).error;
  assert.is(error.code, 'CONFLICT');
  assert.match(error.message, `${MAX_CAUSE_RECORDS} cause records, the most kept per incident`);
  assert.is(error.details.maxRecords, MAX_CAUSE_RECORDS);
  assert.is(await records(full), MAX_CAUSE_RECORDS);
  // Two operators at the cap at once: one is recorded, never both.
  const twice = await newIncident(EAST_F12);
  await recorded(twice, MAX_CAUSE_RECORDS - 1);
  const statuses = (await Promise.all([post(twice, 'northEast', { cause: 'animal' }), post(twice, 'northAdmin', { cause: 'weather' })])).map((r) => r.status).sort();
  assert.equal(statuses, [200, 409]);
  assert.is(await records(twice), MAX_CAUSE_RECORDS);
});

test.run();
