// Spec 5.3 and 2.5.6 over a database filled by the real stages: a user reaches only the devices of the
// user's groups, nobody reaches another organisation, a soft-deleted device and an unregistered IMEI are
// invisible everywhere, and "out of reach" is the same 404 as "does not exist", on every path.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seededApi, type SeededApi, type UserName } from './seeded-api.js';
import { EXTRA } from './extra-messages.js';
import { imeiPaths, json, listPaths, type Json } from './paths.js';

const test = suite('access control');
let api: SeededApi;
test.before(async () => { api = await seededApi(); });
test.after(async () => { await api?.close(); });

const NORTH_EAST = ['861000000000000', '861000000000100', '861000000000200', '861000000000300'];
const NORTH_WEST = ['861000000000400', '861000000000500', '861000000000600'];
const SOUTH_EAST = ['861100000000000', '861100000000100', '861100000000200', '861100000000300'];
const SOUTH_WEST = ['861100000000400', '861100000000500', '861100000000600', '861100000000700'];
const UNREGISTERED = '869999999999999';

const NOT_FOUND_BODY = (imei: string) => ({ error: { code: 'NOT_FOUND', message: 'No such device.', details: { IMEINumber: imei } } });

async function expect404(user: UserName, imeis: readonly string[]): Promise<void> {
  for (const imei of imeis) {
    for (const path of imeiPaths(imei)) {
      const res = await api.get(path, user);
      assert.is(res.status, 404, `${user} ${path}`);
      assert.equal(await res.json(), NOT_FOUND_BODY(imei), `${user} ${path}: the same body as for an unknown device`);
    }
  }
}

async function expect200(user: UserName, imeis: readonly string[]): Promise<void> {
  for (const imei of imeis) for (const path of imeiPaths(imei)) assert.is((await api.get(path, user)).status, 200, `${user} ${path}`);
}

test('a user reaches the devices of the user\'s group on every IMEI path', async () => {
  await expect200('northEast', NORTH_EAST);
  await expect200('southEast', SOUTH_EAST);
});

test('a user gets 404 for a device of another group, on every IMEI path and both prefixes', async () => {
  await expect404('northEast', NORTH_WEST);
  await expect404('southEast', SOUTH_WEST);
});

test('nobody reaches another organisation\'s device (404 on every path)', async () => {
  await expect404('northEast', SOUTH_EAST);
  await expect404('northAdmin', [...SOUTH_EAST, ...SOUTH_WEST]);
  await expect404('southAdmin', [...NORTH_EAST, ...NORTH_WEST]);
  await expect404('southEast', NORTH_EAST);
});

test('an admin reaches every non-deleted device of the organisation', async () => {
  await expect200('northAdmin', [...NORTH_EAST, ...NORTH_WEST]);
  await expect200('southAdmin', [...SOUTH_EAST, ...SOUTH_WEST]);
});

test('the soft-deleted device and an unregistered IMEI are 404 for everyone, on every path', async () => {
  for (const user of ['northAdmin', 'northEast', 'southAdmin'] as const) await expect404(user, [EXTRA.deleted, UNREGISTERED, 'no-such-device']);
});

test('the soft-deleted device did report (its rows exist), so its absence is the filter\'s doing', async () => {
  const { rows } = await api.db.pool.query(`select (select count(*) from device_records where "IMEINumber" = $1)::int as records,
    (select count(*) from event_records where "IMEINumber" = $1)::int as events, (select count(*) from device_records where "IMEINumber" = $2)::int as unregistered`, [EXTRA.deleted, UNREGISTERED]);
  assert.equal(rows[0], { records: 1, events: 1, unregistered: 1 });
});

/** Every IMEI that appears anywhere in a body. */
function imeisIn(body: unknown): Set<string> {
  const found = new Set<string>();
  JSON.stringify(body, (key, value: unknown) => {
    if (typeof value === 'string' && /^86\d{13}$/.test(value)) found.add(value);
    return value;
  });
  return found;
}

const LIST_QUERY: Record<string, string> = { '/data-log': '?limit=500', '/critical-data': '?limit=500', '/all-devices': '?limit=500' };
async function visibleImeis(user: UserName): Promise<Set<string>> {
  const all = new Set<string>();
  for (const path of listPaths()) {
    const suffix = Object.entries(LIST_QUERY).find(([p]) => path.endsWith(p))?.[1] ?? '';
    const res = await api.get(path + suffix, user);
    assert.is(res.status, 200, path);
    for (const imei of imeisIn(await res.json())) all.add(imei);
  }
  return all;
}

test('lists show exactly the devices in reach: never another group, organisation, deleted or unregistered', async () => {
  const expected: [UserName, string[]][] = [
    ['northEast', NORTH_EAST], ['northAdmin', [...NORTH_EAST, ...NORTH_WEST]],
    ['southEast', SOUTH_EAST], ['southAdmin', [...SOUTH_EAST, ...SOUTH_WEST]],
  ];
  for (const [user, imeis] of expected) {
    const seen = await visibleImeis(user);
    assert.equal([...seen].sort(), [...new Set(imeis)].sort(), user);
  }
});

test('device-summary counts only the devices in reach', async () => {
  const counts: [UserName, number][] = [['northEast', 4], ['northAdmin', 7], ['southEast', 4], ['southAdmin', 8]];
  for (const [user, n] of counts) {
    const body = await json(await api.get('/device-records/device-summary', user));
    assert.is(body.totalDevices, n, user);
  }
});

test('dnp3OrganizationDevices lists the organisation\'s non-deleted devices only', async () => {
  const north = (await (await api.get('/api/dnp3/dnp3OrganizationDevices', 'northAdmin')).json()) as Json[];
  assert.equal(north.map((d) => d.IMEINumber), [...NORTH_EAST, ...NORTH_WEST]);
  const south = (await (await api.get('/api/dnp3/dnp3OrganizationDevices', 'southAdmin')).json()) as Json[];
  assert.equal(south.map((d) => d.IMEINumber), [...SOUTH_EAST, ...SOUTH_WEST]);
});

test('a user removed from a group loses its devices at once (no re-login)', async () => {
  const { rows } = await api.db.pool.query<{ id: number }>(`select id from users where email = 'east@north.example'`);
  const userId = rows[0]!.id;
  await api.db.pool.query(`delete from user_groups where user_id = $1`, [userId]);
  try {
    await expect404('northEast', [NORTH_EAST[0]!]);
    const list = await json(await api.get('/device-records/all-devices', 'northEast'));
    assert.is(list.total, 0);
  } finally {
    await api.db.pool.query(`insert into user_groups (user_id, "GroupID") values ($1, 'north-east')`, [userId]);
  }
});

test.run();
