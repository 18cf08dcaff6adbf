import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateImport } from '../../reference-data/validate.js';
import { NO_EXISTING_REFS, type ExistingRefs } from '../../reference-data/references.js';
import type { Problem } from '../../reference-data/errors.js';
import { importFixture } from '../../support/checkins.js';

type Json = Record<string, unknown>;
const fixture = () => importFixture() as Record<string, Json[]>;

function problemsOf(input: unknown, existing: ExistingRefs = NO_EXISTING_REFS): Problem[] {
  const result = validateImport(input, existing);
  return result.ok ? [] : result.problems;
}

test('the fixture is valid: 2 orgs, 4 power lines, 4 groups, 16 devices, 4 users, 4 integrations', () => {
  const result = validateImport(fixture());
  if (!result.ok) assert.unreachable(result.problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
  else {
    const d = result.data;
    assert.equal([d.organizations.length, d.powerLines.length, d.groups.length, d.devices.length, d.users.length, d.integrations.length], [2, 4, 4, 16, 4, 4]);
    assert.is(d.devices.filter((x) => x.deleted).length, 1);
    const oms = d.integrations.find((i) => i.id === 'north-oms')!;
    assert.equal(oms.credentials, { userId: 'fi-north', password: 'north-oms-secret' });
    assert.equal(oms.settings, { endpoint: 'http://127.0.0.1:18080/soap/OA_Server', operation: 'ODEventNotification', version: '4.1' });
    const scada = d.integrations.find((i) => i.id === 'north-scada')!;
    assert.equal(scada.settings, { masterIdentity: 'scada.north.example', outstationAddress: 10, masterAddress: 1 });
    assert.is(scada.credentials, null);
    assert.is(result.warnings.length, 0);
  }
});

test('an empty object imports nothing and is valid', () => {
  assert.ok(validateImport({}).ok);
});

// [name, mutate the fixture, expected path, message pattern]
const BAD: [string, (f: Record<string, Json[]>) => unknown, string, RegExp][] = [
  ['not an object', () => [], '(file)', /must be a JSON object/],
  ['unknown section', (f) => ({ ...f, device: [] }), 'device', /unknown section/],
  ['section not an array', (f) => ({ ...f, devices: {} }), 'devices', /must be an array/],
  ['row not an object', (f) => { f.devices![2] = 'x' as unknown as Json; return f; }, 'devices[2]', /must be an object/],
  ['unknown organization', (f) => { f.devices![3]!.OrganizationID = 'nrth'; return f; }, 'devices[3].OrganizationID', /"nrth" is not an organization in this file or the database/],
  ['bad role', (f) => { f.users![0]!.role = 'root'; return f; }, 'users[0].role', /must be "admin" or "user"/],
  ['missing role', (f) => { delete f.users![1]!.role; return f; }, 'users[1].role', /is required/],
  ['fleet digest of an unknown period', (f) => ({ ...f, alarmRecipients: [{ id: 'r1', OrganizationID: 'north', channel: 'email', address: 'ops@north.example', fleetDigest: 'hourly' }] }), 'alarmRecipients[0].fleetDigest', /must be "daily" or "weekly", not "hourly"/],
  ['fleet digest by SMS', (f) => ({ ...f, alarmRecipients: [{ id: 'r1', OrganizationID: 'north', channel: 'sms', address: '+15550100', fleetDigest: 'daily' }] }), 'alarmRecipients[0].fleetDigest', /e-mail or webhook, not SMS/],
  ['IMEI too short', (f) => { f.devices![0]!.IMEINumber = '1234567890123'; return f; }, 'devices[0].IMEINumber', /14 to 16 digits/],
  ['IMEI too long', (f) => { f.devices![0]!.IMEINumber = '12345678901234567'; return f; }, 'devices[0].IMEINumber', /14 to 16 digits/],
  ['IMEI with letters', (f) => { f.devices![0]!.IMEINumber = '86100000000000A'; return f; }, 'devices[0].IMEINumber', /14 to 16 digits/],
  ['IMEI as a number', (f) => { f.devices![0]!.IMEINumber = 861000000000000; return f; }, 'devices[0].IMEINumber', /must be a string/],
  ['bad org timezone', (f) => { f.organizations![1]!.timezone = 'Mars/Olympus'; return f; }, 'organizations[1].timezone', /"Mars\/Olympus" is not an IANA time zone/],
  ['bad user timezone', (f) => { f.users![2]!.timezone = 'America/Chicgo'; return f; }, 'users[2].timezone', /not an IANA time zone/],
  ['duplicate IMEI', (f) => { f.devices![5]!.IMEINumber = f.devices![2]!.IMEINumber; return f; }, 'devices[5].IMEINumber', /is already devices\[2\]\.IMEINumber/],
  ['duplicate email, other case', (f) => { f.users![3]!.email = 'ADMIN@north.example'; return f; }, 'users[3].email', /is already users\[0\]\.email/],
  ['duplicate organization', (f) => { f.organizations!.push({ ...f.organizations![0]! }); return f; }, 'organizations[2].OrganizationID', /already organizations\[0\]/],
  ['duplicate integration id', (f) => { f.integrations![3]!.id = 'north-oms'; return f; }, 'integrations[3].id', /already integrations\[0\]/],
  ['unknown device field (typo)', (f) => { f.devices![1]!.Real_name = 'x'; return f; }, 'devices[1].Real_name', /unknown field/],
  ['unknown power line', (f) => { f.devices![4]!.PowerLineID = 'north-F99'; return f; }, 'devices[4].PowerLineID', /"north-F99" is not a power line in this file or the database/],
  ['power line of another organization', (f) => { f.devices![4]!.PowerLineID = 'south-F7'; return f; }, 'devices[4].PowerLineID', /belongs to organization "south", not "north"/],
  ['unknown device group', (f) => { f.devices![6]!.groups = ['north-east', 'north-nowhere']; return f; }, 'devices[6].groups[1]', /"north-nowhere" is not a group/],
  ['group of another organization', (f) => { f.users![1]!.groups = ['south-east']; return f; }, 'users[1].groups[0]', /belongs to organization "south"/],
  ['group listed twice', (f) => { f.devices![6]!.groups = ['north-west', 'north-west']; return f; }, 'devices[6].groups[1]', /listed twice/],
  ['groups not an array', (f) => { f.devices![6]!.groups = 'north-west'; return f; }, 'devices[6].groups', /must be an array/],
  ['latitude out of range', (f) => { f.devices![0]!.Lat = 91; return f; }, 'devices[0].Lat', /between -90 and 90/],
  ['longitude not a number', (f) => { f.devices![0]!.Long = '-87.7'; return f; }, 'devices[0].Long', /must be a number/],
  ['deleted not a boolean', (f) => { f.devices![0]!.deleted = 'yes'; return f; }, 'devices[0].deleted', /true or false/],
  ['bad dnp3QueueAddress', (f) => { f.devices![0]!.dnp3QueueAddress = 'dnp3 north'; return f; }, 'devices[0].dnp3QueueAddress', /topic name/],
  ['power line org unknown', (f) => { f.powerLines![0]!.OrganizationID = 'west'; return f; }, 'powerLines[0].OrganizationID', /"west" is not an organization/],
  ['group id with surrounding space', (f) => { f.groups![0]!.GroupID = ' north-east'; return f; }, 'groups[0].GroupID', /identifier without surrounding spaces/],
  ['organization without name', (f) => { delete f.organizations![0]!.name; return f; }, 'organizations[0].name', /is required/],
  ['MaskFaultDetails not boolean', (f) => { f.organizations![0]!.MaskFaultDetails = 1; return f; }, 'organizations[0].MaskFaultDetails', /true or false/],
  ['bad email', (f) => { f.users![0]!.email = 'admin.north.example'; return f; }, 'users[0].email', /email address/],
  ['new user without password', (f) => { delete f.users![2]!.password; return f; }, 'users[2].password', /required for a new user/],
  ['password too short', (f) => { f.users![2]!.password = 'short'; return f; }, 'users[2].password', /at least 8 characters/],
  ['integration kind unknown', (f) => { f.integrations![0]!.kind = 'rest'; return f; }, 'integrations[0].kind', /"multispeak" or "dnp3"/],
  ['multispeak on a DNP3 channel', (f) => { f.integrations![0]!.channel = 'A'; return f; }, 'integrations[0].channel', /"C" or "D"/],
  ['dnp3 on a MultiSpeak channel', (f) => { f.integrations![1]!.channel = 'C'; return f; }, 'integrations[1].channel', /"A" or "B"/],
  ['endpoint not a URL', (f) => { f.integrations![0]!.endpoint = 'oms.north'; return f; }, 'integrations[0].endpoint', /absolute http/],
  ['endpoint with credentials', (f) => { f.integrations![0]!.endpoint = 'https://u:p@oms.example/soap'; return f; }, 'integrations[0].endpoint', /user name or password/],
  ['endpoint ftp', (f) => { f.integrations![0]!.endpoint = 'ftp://oms.example/'; return f; }, 'integrations[0].endpoint', /http:\/\/ or https:\/\//],
  ['unknown operation', (f) => { f.integrations![0]!.operation = 'ODEventNotifcation'; return f; }, 'integrations[0].operation', /must be .*"ODEventNotification".*"AssessmentLocationChangedNotification"|must be .*"AssessmentLocationChangedNotification".*"ODEventNotification"/],
  ['bad version', (f) => { f.integrations![0]!.version = '5.0'; return f; }, 'integrations[0].version', /"3.0" or "4.1"/],
  ['userId without password', (f) => { delete f.integrations![0]!.password; return f; }, 'integrations[0].password', /go together/],
  ['credentials on a DNP3 integration', (f) => { f.integrations![1]!.password = 'x'; return f; }, 'integrations[1].password', /unknown field/],
  ['missing masterIdentity', (f) => { delete f.integrations![1]!.masterIdentity; return f; }, 'integrations[1].masterIdentity', /is required/],
  ['outstation address out of range', (f) => { f.integrations![1]!.outstationAddress = 65535; return f; }, 'integrations[1].outstationAddress', /between 0 and 65519/],
  ['master address not whole', (f) => { f.integrations![1]!.masterAddress = 1.5; return f; }, 'integrations[1].masterAddress', /whole number/],
  ['integration org unknown', (f) => { f.integrations![2]!.OrganizationID = 'sth'; return f; }, 'integrations[2].OrganizationID', /"sth" is not an organization/],
  // The group profile (settings drift): numbers where the device reports numbers, strings where it reports text.
  ['profile firmware not a string', (f) => { f.groups![0]!.FirmwareVersion = 4.3; return f; }, 'groups[0].FirmwareVersion', /must be a string/],
  ['profile reset hours not a number', (f) => { f.groups![0]!.Permfault_Reset_Hours = '8'; return f; }, 'groups[0].Permfault_Reset_Hours', /must be a number/],
  ['profile block reset negative', (f) => { f.groups![1]!.Block_Reset = -1; return f; }, 'groups[1].Block_Reset', /between 0 and 100000/],
  ['profile field misspelt', (f) => { f.groups![0]!.Firmware = '4.3.0'; return f; }, 'groups[0].Firmware', /unknown field/],
];

for (const [name, mutate, path, message] of BAD) {
  test(`refused: ${name} -> ${path}`, () => {
    const problems = problemsOf(mutate(fixture()));
    const hit = problems.find((p) => p.path === path);
    assert.ok(hit, `no problem at ${path}; got: ${problems.map((p) => `${p.path}: ${p.message}`).join(' | ') || 'none'}`);
    assert.match(hit!.message, message);
  });
}

test('every problem is listed at once, each with its own path', () => {
  const f = fixture();
  f.devices![3]!.OrganizationID = 'nrth';
  f.users![0]!.role = 'root';
  f.devices![9]!.IMEINumber = '123';
  f.organizations![0]!.timezone = 'Nowhere/City';
  const paths = problemsOf(f).map((p) => p.path).sort();
  assert.equal(paths, ['devices[3].OrganizationID', 'devices[9].IMEINumber', 'organizations[0].timezone', 'users[0].role']);
});

test('one broken row does not cascade: a bad org timezone still lets its devices resolve the org', () => {
  const f = fixture();
  f.organizations![0]!.timezone = 'Nowhere/City';
  assert.equal(problemsOf(f).map((p) => p.path), ['organizations[0].timezone']);
});

test('paths are positions in the file even after earlier rows failed', () => {
  const f = fixture();
  f.devices![1]!.Lat = 'north';
  f.devices![7]!.PowerLineID = 'nope';
  assert.equal(problemsOf(f).map((p) => p.path).sort(), ['devices[1].Lat', 'devices[7].PowerLineID']);
});

test('references may point at rows already in the database', () => {
  const file = {
    devices: [{ IMEINumber: '861999999999999', OrganizationID: 'north', PowerLineID: 'north-F12', groups: ['north-east'] }],
    users: [{ email: 'admin@north.example', OrganizationID: 'north', role: 'admin' }],
  };
  assert.ok(problemsOf(file).length >= 3, 'without the database the references are unknown');
  const existing: ExistingRefs = {
    organizations: new Set(['north']), powerLines: new Map([['north-F12', 'north']]),
    groups: new Map([['north-east', 'north']]), userEmails: new Set(['admin@north.example']),
  };
  assert.equal(problemsOf(file, existing), [], 'an existing user may leave out the password');
  const wrongOrg: ExistingRefs = { ...existing, powerLines: new Map([['north-F12', 'south']]) };
  assert.match(problemsOf(file, wrongOrg)[0]!.message, /belongs to organization "south"/);
});

test('no problem message quotes a password or integration userId', () => {
  const f = fixture();
  f.users![0]!.password = 'sh0rt!';
  f.integrations![0]!.userId = 12345;
  f.integrations![2]!.password = ['south-oms-secret'];
  const problems = problemsOf(f);
  assert.is(problems.length, 3);
  const text = JSON.stringify(problems);
  for (const secret of ['sh0rt!', '12345', 'south-oms-secret']) assert.not.ok(text.includes(secret), `${secret} in ${text}`);
});

// docs/decisions.md#secrets-left-at-their-example: a secret of the file left at a documented placeholder (the
// example file's `change-me-...` values) is refused, naming the field and its row, never quoting the value.
const PLACEHOLDER_SECRETS: [string, (f: Record<string, Json[]>) => void, string][] = [
  ['a user password', (f) => { f.users![0]!.password = 'change-me-Admin-1'; }, 'users[0].password'],
  ['a user password, other case', (f) => { f.users![3]!.password = 'CHANGE-ME-East-1'; }, 'users[3].password'],
  ['an OMS password', (f) => { f.integrations![0]!.password = 'change-me-oms-1'; }, 'integrations[0].password'],
  ['an OMS userId', (f) => { f.integrations![0]!.userId = 'CHANGE-ME'; }, 'integrations[0].userId'],
  ['a webhook recipient secret', (f) => {
    f.alarmRecipients = [{ id: 'north-hook', OrganizationID: 'north', channel: 'webhook', address: 'https://hooks.north.example/faultline', secret: 'whsec-change-me-0123456789' }];
  }, 'alarmRecipients[0].secret'],
];

for (const [name, mutate, path] of PLACEHOLDER_SECRETS) {
  test(`refused: ${name} left at the documentation's placeholder -> ${path}`, () => {
    const f = fixture();
    mutate(f);
    const problems = problemsOf(f);
    assert.equal(problems.map((p) => p.path), [path]);
    assert.match(problems[0]!.message, /placeholder from the documentation's examples/);
    assert.not.match(JSON.stringify(problems), /change-me/i);
  });
}

test('warnings do not refuse the file: groups on an admin', () => {
  const f = fixture();
  f.users![0]!.groups = ['north-east'];
  const result = validateImport(f);
  assert.ok(result.ok);
  assert.equal(result.warnings.map((w) => w.path), ['users[0].groups']);
});

test('userId/password null clears credentials; absent keeps them; never in settings', () => {
  const f = fixture();
  f.integrations![0]!.userId = null;
  f.integrations![0]!.password = null;
  delete f.integrations![2]!.userId;
  delete f.integrations![2]!.password;
  const result = validateImport(f);
  assert.ok(result.ok);
  if (result.ok) {
    assert.is(result.data.integrations[0]!.credentials, null);
    assert.is(result.data.integrations[2]!.credentials, 'keep');
    for (const i of result.data.integrations) assert.not.ok('userId' in i.settings || 'password' in i.settings);
  }
});

test.run();

test('a group profile is optional: absent is null for every setting; given, it is read as typed', () => {
  const f = fixture();
  Object.assign(f.groups![1]!, { FirmwareVersion: '4.3.0', Tempfault_Reset_Hours: '2', Permfault_Reset_Hours: 8, Current_Reset: 'Auto', Block_Reset: 0 });
  const result = validateImport(f);
  if (!result.ok) assert.unreachable(result.problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
  else {
    assert.equal(result.data.groups[0]!.profile, { FirmwareVersion: null, Tempfault_Reset_Hours: null, Permfault_Reset_Hours: null, Current_Reset: null, Block_Reset: null });
    assert.equal(result.data.groups[1]!.profile, { FirmwareVersion: '4.3.0', Tempfault_Reset_Hours: '2', Permfault_Reset_Hours: 8, Current_Reset: 'Auto', Block_Reset: 0 });
  }
});
