// `faultline import` against real Postgres: counts, idempotence down to updated_at and ciphertext bytes,
// all-or-nothing on errors, passwords and credentials at rest.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { verifyPassword } from '../../../secrets/password.js';
import { importReferenceData } from '../../../reference-data/import.js';
import { ImportError } from '../../../reference-data/errors.js';
import type { ImportCounts, KindCounts } from '../../../reference-data/model.js';
import { decryptCredentials } from '../../../secrets/credentials.js';
import { Keyring } from '../../../secrets/keyring.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importFixture } from '../../../support/checkins.js';

type Json = Record<string, unknown>;
type File = Record<string, Json[]>;
const fixture = (): File => importFixture() as File;

const keyring = new Keyring([{ id: 'k1', key: randomBytes(32) }]);
let db: TestDatabase;
let pool: pg.Pool;

const TABLES = ['organizations', 'power_lines', 'groups', 'device_information', 'group_device_links', 'users', 'user_groups', 'integrations'];

/** Every row of every reference table, as Postgres renders it (microseconds and bytea hex included). */
async function dump(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of TABLES) {
    // Table names come from the constant list above.
    const { rows } = await pool.query<{ row: string }>(`select to_jsonb(t)::text as row from ${table} t order by 1`);
    out[table] = rows.map((r) => r.row);
  }
  return out;
}

const none: KindCounts = { inserted: 0, updated: 0, unchanged: 0 };
function unchanged(c: ImportCounts): Record<string, number> {
  return Object.fromEntries(Object.entries(c).map(([k, v]) => [k, v.inserted + v.updated]));
}
const ZERO_CHANGES = { organizations: 0, powerLines: 0, groups: 0, devices: 0, users: 0, integrations: 0, alarmRecipients: 0, alarmRules: 0 };

async function resetDatabase(): Promise<void> {
  await pool.query('truncate organizations, power_lines, groups, device_information, group_device_links, users, user_groups, integrations cascade');
}

test.before(async () => {
  db = await createTestDatabase('import');
  pool = db.pool;
});
test.after(async () => { await db?.drop(); });

test('the fixture imports: 2 orgs, 4 power lines, 4 groups, 16 devices (1 soft-deleted), 4 users, 4 integrations', async () => {
  await resetDatabase();
  const counts = await importReferenceData(pool, fixture(), { keyring });
  assert.equal(counts, {
    organizations: { ...none, inserted: 2 }, powerLines: { ...none, inserted: 4 }, groups: { ...none, inserted: 4 },
    devices: { ...none, inserted: 16 }, users: { ...none, inserted: 4 }, integrations: { ...none, inserted: 4 },
    alarmRecipients: none, alarmRules: none, // the fixture has no alarm routing
  });
  const { rows } = await pool.query<{ imei: string }>('select "IMEINumber" as imei from device_information where deleted_at is not null');
  assert.equal(rows.map((r) => r.imei), ['861000000000700']);
  const links = await pool.query<{ n: number }>('select count(*)::int as n from group_device_links');
  assert.is(links.rows[0]!.n, 16);
  const ug = await pool.query<{ email: string; g: string }>('select u.email, g."GroupID" as g from user_groups g join users u on u.id = g.user_id order by 1');
  assert.equal(ug.rows, [{ email: 'east@north.example', g: 'north-east' }, { email: 'east@south.example', g: 'south-east' }]);
  const org = await pool.query('select "MaskFaultDetails", timezone from organizations where "OrganizationID" = $1', ['south']);
  assert.equal(org.rows[0], { MaskFaultDetails: true, timezone: 'Australia/Sydney' });
});

test('re-import changes nothing: all unchanged, every row byte-identical (updated_at, hashes, ciphertexts)', async () => {
  const before = await dump();
  const counts = await importReferenceData(pool, fixture(), { keyring });
  assert.equal(unchanged(counts), ZERO_CHANGES);
  assert.equal(counts.devices, { inserted: 0, updated: 0, unchanged: 16 });
  assert.equal(await dump(), before);
});

test('passwords are stored as scrypt hashes that verify', async () => {
  const { rows } = await pool.query<{ email: string; password_hash: string }>('select email, password_hash from users');
  for (const user of fixture().users!) {
    const stored = rows.find((r) => r.email === user.email)!.password_hash;
    assert.match(stored, /^scrypt\$/);
    assert.ok(await verifyPassword(user.password as string, stored), String(user.email));
    assert.not.ok(await verifyPassword('wrong-password', stored));
  }
});

test('credentials decrypt, and appear nowhere in settings', async () => {
  const { rows } = await pool.query<{ id: string; settings: Json; settings_text: string; credentials: Buffer | null; credentials_key_id: string | null }>(
    'select id, settings, settings::text as settings_text, credentials, credentials_key_id from integrations order by id',
  );
  for (const given of fixture().integrations!) {
    const row = rows.find((r) => r.id === given.id)!;
    assert.not.ok('userId' in row.settings || 'password' in row.settings);
    if (given.kind === 'multispeak') {
      assert.is(row.credentials_key_id, 'k1');
      assert.equal(decryptCredentials(keyring, row.id, row.credentials!, row.credentials_key_id!), { userId: given.userId, password: given.password });
      assert.not.ok(row.settings_text.includes(given.password as string) || row.settings_text.includes(given.userId as string));
      assert.not.ok(row.credentials!.includes(Buffer.from(given.password as string)));
      assert.equal(row.settings, { endpoint: given.endpoint, operation: given.operation, version: given.version });
    } else {
      assert.is(row.credentials, null);
      assert.equal(row.settings, { masterIdentity: given.masterIdentity, outstationAddress: given.outstationAddress, masterAddress: given.masterAddress });
    }
  }
});

test('one device renamed: exactly one update, and only that row changes', async () => {
  const before = await dump();
  const f = fixture();
  f.devices![4]!.Real_Name = 'North F12 Pole 44 Phase B (replaced 2026)';
  const counts = await importReferenceData(pool, f, { keyring });
  assert.equal(unchanged(counts), { ...ZERO_CHANGES, devices: 1 });
  assert.equal(counts.devices, { inserted: 0, updated: 1, unchanged: 15 });
  const after = await dump();
  const changed = after.device_information!.filter((r) => !before.device_information!.includes(r));
  assert.is(changed.length, 1);
  assert.match(changed[0]!, /replaced 2026/);
  for (const table of TABLES.filter((t) => t !== 'device_information')) assert.equal(after[table], before[table], table);
  await importReferenceData(pool, fixture(), { keyring }); // back to the fixture
});

test('a file with an error writes nothing at all, and names every problem', async () => {
  const before = await dump();
  const f = fixture();
  f.organizations![0]!.name = 'North Utility Renamed'; // a valid change that must not land
  f.devices!.push({ IMEINumber: '861000000099999', OrganizationID: 'north', Real_Name: 'new' });
  f.devices![3]!.OrganizationID = 'nrth';
  f.users![0]!.role = 'root';
  try {
    await importReferenceData(pool, f, { keyring });
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.instance(err, ImportError);
    const e = err as ImportError;
    assert.is(e.code, 'IMPORT_INVALID');
    assert.equal(e.problems.map((p) => p.path).sort(), ['devices[3].OrganizationID', 'users[0].role']);
    assert.match(e.message, /devices\[3\]\.OrganizationID: "nrth" is not an organization in this file or the database/);
  }
  assert.equal(await dump(), before);
});

test('on an empty database too: a broken file leaves every table empty', async () => {
  await resetDatabase();
  const f = fixture();
  f.integrations![0]!.endpoint = 'not a url';
  await importReferenceData(pool, f, { keyring }).then(() => assert.unreachable('should have thrown'), (err: unknown) => assert.instance(err, ImportError));
  const tables = await dump();
  for (const table of TABLES) assert.equal(tables[table], [], table);
  await importReferenceData(pool, fixture(), { keyring });
});

test('soft delete: undelete, delete again, and a re-import keeps the first deletion time', async () => {
  const f = fixture();
  f.devices![7]!.deleted = false;
  assert.equal((await importReferenceData(pool, f, { keyring })).devices, { inserted: 0, updated: 1, unchanged: 15 });
  const q = 'select deleted_at::text as at from device_information where "IMEINumber" = $1';
  assert.is((await pool.query<{ at: string | null }>(q, ['861000000000700'])).rows[0]!.at, null);
  delete f.devices![7]!.deleted; // missing means not deleted
  assert.is((await importReferenceData(pool, f, { keyring })).devices.updated, 0);
  await importReferenceData(pool, fixture(), { keyring });
  const first = (await pool.query<{ at: string | null }>(q, ['861000000000700'])).rows[0]!.at;
  assert.ok(first);
  await new Promise((r) => setTimeout(r, 20));
  assert.is((await importReferenceData(pool, fixture(), { keyring })).devices.updated, 0);
  assert.is((await pool.query<{ at: string | null }>(q, ['861000000000700'])).rows[0]!.at, first);
});

test('group set: the listed groups become exactly the device\'s groups, counted as one update', async () => {
  const f = fixture();
  f.devices![0]!.groups = ['north-west'];
  const counts = await importReferenceData(pool, f, { keyring });
  assert.equal(counts.devices, { inserted: 0, updated: 1, unchanged: 15 });
  const { rows } = await pool.query<{ g: string }>(
    'select l."GroupID" as g from group_device_links l join device_information d using ("DeviceID") where d."IMEINumber" = $1', ['861000000000000'],
  );
  assert.equal(rows.map((r) => r.g), ['north-west']);
  f.devices![0]!.groups = [];
  assert.is((await importReferenceData(pool, f, { keyring })).devices.updated, 1);
  assert.is((await importReferenceData(pool, f, { keyring })).devices.updated, 0);
  await importReferenceData(pool, fixture(), { keyring });
});

test('a group profile (settings drift): stored as typed, one update when it changes, none when re-imported, null again when left out', async () => {
  await importReferenceData(pool, fixture(), { keyring });
  const q = `select "FirmwareVersion", "Tempfault_Reset_Hours", "Permfault_Reset_Hours", "Current_Reset", "Block_Reset" from groups where "GroupID" = $1`;
  const f = fixture();
  Object.assign(f.groups![1]!, { FirmwareVersion: '4.3.0', Tempfault_Reset_Hours: '2', Permfault_Reset_Hours: 8, Current_Reset: 'Auto', Block_Reset: 0 });
  assert.equal((await importReferenceData(pool, f, { keyring })).groups, { inserted: 0, updated: 1, unchanged: 3 });
  const id = f.groups![1]!.GroupID as string;
  assert.equal((await pool.query(q, [id])).rows[0], { FirmwareVersion: '4.3.0', Tempfault_Reset_Hours: '2', Permfault_Reset_Hours: 8, Current_Reset: 'Auto', Block_Reset: 0 });
  assert.equal((await importReferenceData(pool, f, { keyring })).groups, { inserted: 0, updated: 0, unchanged: 4 });
  // The file before profiles existed: it imports as it did, and the row it describes has no profile.
  assert.equal((await importReferenceData(pool, fixture(), { keyring })).groups, { inserted: 0, updated: 1, unchanged: 3 });
  assert.equal((await pool.query(q, [id])).rows[0], { FirmwareVersion: null, Tempfault_Reset_Hours: null, Permfault_Reset_Hours: null, Current_Reset: null, Block_Reset: null });
});

test('a device moved to another organisation: OrganizationSince set at the move, LastCheckInTime cleared; other changes keep both', async () => {
  const q = `select "OrganizationSince" as since, "LastCheckInTime"::text as last from device_information where "IMEINumber" = '861000000000100'`;
  const read = async () => (await pool.query<{ since: Date | number; last: string | null }>(q)).rows[0]!;
  await pool.query(`update device_information set "LastCheckInTime" = '2026-11-20T10:00:00Z' where "IMEINumber" = '861000000000100'`);
  assert.equal(await read(), { since: -Infinity, last: '2026-11-20 10:00:00+00' }, 'never moved: the whole history is the organisation\'s');
  const f = fixture();
  f.devices![1]!.Real_Name = 'Renamed';
  await importReferenceData(pool, f, { keyring });
  assert.equal(await read(), { since: -Infinity, last: '2026-11-20 10:00:00+00' }, 'a rename is no move');
  const t0 = Date.now();
  Object.assign(f.devices![1]!, { OrganizationID: 'south', PowerLineID: 'south-F7', groups: ['south-east'] });
  assert.equal((await importReferenceData(pool, f, { keyring })).devices, { inserted: 0, updated: 1, unchanged: 15 });
  const moved = await read();
  assert.ok(moved.since instanceof Date && moved.since.getTime() >= t0 - 5_000, String(moved.since));
  assert.is(moved.last, null, 'the new organisation has not heard from it yet');
  f.devices![1]!.Real_Name = 'Renamed again';
  await importReferenceData(pool, f, { keyring });
  assert.equal((await read()).since, moved.since, 'a later change in the same organisation keeps the move time');
  await importReferenceData(pool, fixture(), { keyring });
  assert.ok(((await read()).since as Date).getTime() >= (moved.since as Date).getTime(), 'moving back is a move too');
  await pool.query(`update device_information set "OrganizationSince" = '-infinity' where "IMEINumber" = '861000000000100'`);
});

test('a changed password is re-hashed; an omitted one keeps the stored hash', async () => {
  const hashOf = async (email: string) => (await pool.query<{ h: string }>('select password_hash as h from users where email = $1', [email])).rows[0]!.h;
  const before = await hashOf('admin@north.example');
  const f = fixture();
  f.users![0]!.password = 'a-brand-new-Pass-2';
  assert.equal((await importReferenceData(pool, f, { keyring })).users, { inserted: 0, updated: 1, unchanged: 3 });
  const changed = await hashOf('admin@north.example');
  assert.is.not(changed, before);
  assert.ok(await verifyPassword('a-brand-new-Pass-2', changed));
  delete f.users![0]!.password;
  assert.is((await importReferenceData(pool, f, { keyring })).users.updated, 0);
  assert.is(await hashOf('admin@north.example'), changed);
  await importReferenceData(pool, fixture(), { keyring });
});

test('credentials: changed ones are re-encrypted; a key rotation alone does not rewrite them', async () => {
  const q = 'select credentials, credentials_key_id as k from integrations where id = $1';
  const before = (await pool.query<{ credentials: Buffer; k: string }>(q, ['north-oms'])).rows[0]!;
  const rotated = new Keyring([{ id: 'k2', key: randomBytes(32) }, keyring.current]);
  assert.equal(unchanged(await importReferenceData(pool, fixture(), { keyring: rotated })), ZERO_CHANGES);
  const f = fixture();
  f.integrations![0]!.password = 'north-oms-secret-2';
  assert.equal((await importReferenceData(pool, f, { keyring: rotated })).integrations, { inserted: 0, updated: 1, unchanged: 3 });
  const after = (await pool.query<{ credentials: Buffer; k: string }>(q, ['north-oms'])).rows[0]!;
  assert.is(after.k, 'k2');
  assert.not.ok(after.credentials.equals(before.credentials));
  assert.equal(decryptCredentials(rotated, 'north-oms', after.credentials, 'k2'), { userId: 'fi-north', password: 'north-oms-secret-2' });
  await importReferenceData(pool, fixture(), { keyring });
});

test('credentials null clears them; omitted keeps them; a user can be soft-deleted', async () => {
  const q = 'select id, credentials is not null as has from integrations where kind = $1 order by id';
  const f = fixture();
  f.integrations![0]!.userId = null;
  f.integrations![0]!.password = null;
  delete f.integrations![2]!.userId;
  delete f.integrations![2]!.password;
  f.users![1]!.deleted = true;
  const counts = await importReferenceData(pool, f); // no keyring needed: nothing to encrypt
  assert.equal(counts.integrations, { inserted: 0, updated: 1, unchanged: 3 });
  assert.equal(counts.users, { inserted: 0, updated: 1, unchanged: 3 });
  assert.equal((await pool.query(q, ['multispeak'])).rows, [{ id: 'north-oms', has: false }, { id: 'south-oms', has: true }]);
  const u = await pool.query<{ deleted: boolean }>('select deleted_at is not null as deleted from users where email = $1', ['east@north.example']);
  assert.is(u.rows[0]!.deleted, true);
  const back = await importReferenceData(pool, fixture(), { keyring });
  assert.equal(back.integrations, { inserted: 0, updated: 1, unchanged: 3 });
  assert.equal(back.users, { inserted: 0, updated: 1, unchanged: 3 });
});

test('credentials without a keyring are refused before anything is written', async () => {
  const before = await dump();
  const f = fixture();
  f.organizations![0]!.name = 'changed';
  await importReferenceData(pool, f).then(() => assert.unreachable('should have thrown'), (err: unknown) => {
    assert.instance(err, ImportError);
    assert.equal((err as ImportError).problems.map((p) => p.path), ['integrations[0].password', 'integrations[2].password']);
  });
  assert.equal(await dump(), before);
});

test('references may point at rows already in the database; emails match case-insensitively', async () => {
  const counts = await importReferenceData(pool, {
    devices: [{ IMEINumber: '861000000088888', OrganizationID: 'north', PowerLineID: 'north-F7', groups: ['north-east'], Real_Name: 'Spare' }],
    users: [{ email: 'EAST@north.example', OrganizationID: 'north', role: 'user', timezone: 'America/Chicago', groups: ['north-east'] }],
  }, { keyring });
  assert.equal(counts.devices, { inserted: 1, updated: 0, unchanged: 0 });
  // Only the stored spelling of the email differs: one update, the hash kept (no password given).
  assert.equal(counts.users, { inserted: 0, updated: 1, unchanged: 0 });
  const { rows } = await pool.query<{ n: number }>('select count(*)::int as n from users');
  assert.is(rows[0]!.n, 4);
  await pool.query('delete from device_information where "IMEINumber" = $1', ['861000000088888']);
  await importReferenceData(pool, fixture(), { keyring });
});

test('a large file: multi-row chunks, progress every 1,000 devices, idempotent', async () => {
  const f = fixture();
  const many = Array.from({ length: 5_000 }, (_, i) => ({
    IMEINumber: `86200000${String(i).padStart(7, '0')}`, OrganizationID: i % 2 ? 'north' : 'south',
    PowerLineID: i % 2 ? 'north-F7' : 'south-F12', Real_Name: `Bulk ${i}`, Lat: 40 + i / 10_000, Long: -88 + i / 10_000,
    serialNumber: `SN-B${i}`, groups: i % 3 ? [i % 2 ? 'north-east' : 'south-west'] : [], dnp3QueueAddress: null, deleted: i % 97 === 0,
  }));
  f.devices = [...f.devices!, ...many];
  const progress: number[] = [];
  const t0 = performance.now();
  const counts = await importReferenceData(pool, f, { keyring, onProgress: (p) => { if (p.kind === 'devices') progress.push(p.done); } });
  const firstMs = performance.now() - t0;
  assert.equal(counts.devices, { inserted: 5_000, updated: 0, unchanged: 16 });
  assert.equal(progress, [1000, 2000, 3000, 4000, 5000, 5016]);
  const before = await dump();
  const t1 = performance.now();
  assert.equal(unchanged(await importReferenceData(pool, f, { keyring })), ZERO_CHANGES);
  const againMs = performance.now() - t1;
  assert.equal(await dump(), before);
  console.log(`  5,016 devices: first import ${firstMs.toFixed(0)} ms, re-import ${againMs.toFixed(0)} ms`);
  assert.ok(firstMs < 30_000, `first import took ${firstMs} ms`);
});

test('a SCADA master identity belongs to one organisation: another organisation claiming it (stored, or earlier in the same file) is refused, nothing written; its own organisation re-imports it', async () => {
  await resetDatabase();
  await importReferenceData(pool, fixture(), { keyring });
  const before = await dump();
  const northScada = fixture().integrations!.find((i) => i.id === 'north-scada')!;
  const claim = (id: string, OrganizationID: string, extra: Json = {}) => ({ ...northScada, id, OrganizationID, channel: 'B', ...extra });
  const problems = (data: unknown) => importReferenceData(pool, data, { keyring }).then(() => [] as string[], (e: unknown) => {
    assert.instance(e, ImportError);
    return (e as ImportError).problems.map((p) => `${p.path}: ${p.message}`);
  });
  const stored = await problems({ integrations: [claim('south-claims-north', 'south', { masterIdentity: 'SCADA.North.Example' })] });
  assert.equal(stored.length, 1, stored.join('\n'));
  assert.match(stored[0]!, /^integrations\[0\][^:]*\.settings\.masterIdentity: master identity "SCADA.North.Example" is already claimed by another organisation's dnp3 integration/, stored[0]);
  assert.not.ok(stored[0]!.includes('north-scada'), 'the claimant is not named');
  // Another kind is another protocol's listener: no conflict there; the file's own two organisations conflict.
  const inFile = await problems({ integrations: [claim('south-a', 'south', { masterIdentity: 'scada.shared.example' }), claim('north-b', 'north', { masterIdentity: 'scada.shared.example' })] });
  assert.equal(inFile.length, 1, inFile.join('\n'));
  assert.match(inFile[0]!, /^integrations\[1\]/, inFile[0]);
  assert.equal(await dump(), before, 'nothing written');
  assert.equal(await problems({ integrations: [{ ...northScada, enabled: false }] }), [], 'north re-imports its own');
});

test("a claim's age resets whenever what it claims changes (master identity, mode, pin, caFile, organisation), not when other settings do: an old row repointed at another master is a new claim", async () => {
  await resetDatabase();
  await importReferenceData(pool, fixture(), { keyring });
  const northScada = fixture().integrations!.find((i) => i.id === 'north-scada')!;
  const claimedAt = async () => (await pool.query<{ t: string }>(`select claimed_at::text as t from integrations where id = 'north-scada'`)).rows[0]!.t;
  const created = (await pool.query<{ t: string }>(`select created_at::text as t from integrations where id = 'north-scada'`)).rows[0]!.t;
  // The row as an old one: created and claimed a year ago.
  await pool.query(`update integrations set created_at = now() - interval '1 year' where id = 'north-scada'`);
  await pool.query(`alter table integrations disable trigger integrations_claim_reset`);
  await pool.query(`update integrations set claimed_at = now() - interval '1 year' where id = 'north-scada'`);
  await pool.query(`alter table integrations enable trigger integrations_claim_reset`);
  const old = await claimedAt();
  assert.ok(old < created, `${old} < ${created}`);
  const reimport = (extra: Json) => importReferenceData(pool, { integrations: [{ ...northScada, ...extra }] }, { keyring });
  await reimport({ analogOnly: true, enabled: false });
  assert.is(await claimedAt(), old, 'other settings keep the claim');
  assert.is((await pool.query(`select enabled from integrations where id = 'north-scada'`)).rows[0].enabled, false, 'the row was updated');
  for (const change of [{ masterIdentity: 'scada1' }, { certificateMode: 'pinned', pinnedCertificateFile: '/etc/faultline/victim-master.pem' }, { caFile: '/etc/faultline/victim-ca.pem' }, { OrganizationID: 'south' }]) {
    await reimport({});
    await pool.query(`alter table integrations disable trigger integrations_claim_reset`);
    await pool.query(`update integrations set claimed_at = $1 where id = 'north-scada'`, [old]);
    await pool.query(`alter table integrations enable trigger integrations_claim_reset`);
    await reimport(change);
    assert.ok(await claimedAt() > old, `${JSON.stringify(change)} starts a new claim`);
  }
});

test("a dedicated port belongs to one organisation and one protocol, within SCADA_DEDICATED_PORTS: another organisation's or protocol's port, a port outside the range, refused, the holder not named", async () => {
  await resetDatabase();
  await importReferenceData(pool, fixture(), { keyring });
  const row = (id: string, OrganizationID: string, kind: string, port: number) => ({ id, OrganizationID, kind, channel: 'B', masterIdentity: `${id}.example`, port });
  const range = { from: 20001, to: 20999 };
  await importReferenceData(pool, { integrations: [row('north-iec', 'north', 'iec104', 20500)] }, { keyring, dedicatedPorts: range });
  const before = await dump();
  const problems = (data: unknown) => importReferenceData(pool, data, { keyring, dedicatedPorts: range }).then(() => [] as string[], (e: unknown) => {
    assert.instance(e, ImportError);
    return (e as ImportError).problems.map((p) => `${p.path}: ${p.message}`);
  });
  const otherKind = await problems({ integrations: [row('south-dnp3', 'south', 'dnp3', 20500)] });
  assert.equal(otherKind.length, 1, otherKind.join('\n'));
  assert.match(otherKind[0]!, /^integrations\[0\][^:]*\.settings\.port: port 20500 is already the dedicated port of another organisation's integration or of another protocol/);
  assert.not.ok(otherKind[0]!.includes('north'), 'the holder is not named');
  assert.equal((await problems({ integrations: [row('north-dnp3', 'north', 'dnp3', 20500)] })).length, 1, 'its own organisation, another protocol');
  assert.equal((await problems({ integrations: [row('south-iec', 'south', 'iec104', 20500)] })).length, 1, 'the same protocol, another organisation');
  const inFile = await problems({ integrations: [row('south-a', 'south', 'dnp3', 20600), row('north-b', 'north', 'dnp3', 20600)] });
  assert.equal(inFile.length, 1, inFile.join('\n'));
  assert.match(inFile[0]!, /^integrations\[1\]/);
  for (const squat of [5432, 9092, 8081, 54329]) {
    const outside = await problems({ integrations: [row('south-squat', 'south', 'dnp3', squat)] });
    assert.equal(outside.length, 1, outside.join('\n'));
    assert.match(outside[0]!, new RegExp(`port ${squat} is outside SCADA_DEDICATED_PORTS \\(20001-20999\\)`));
  }
  assert.equal(await dump(), before, 'nothing written');
  assert.equal(await problems({ integrations: [row('north-iec-2', 'north', 'iec104', 20500)] }), [], 'its own organisation shares its port for one protocol');
});

test.run();
