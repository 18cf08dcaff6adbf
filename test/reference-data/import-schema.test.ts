// schemas/import.schema.json, the import file's JSON Schema: committed as generated, every field the
// validator knows and no other, the fixture valid, and a wrong file refused by the schema as by the
// validator (validate.ts stays the judge; the schema is what an integrator's editor or pipeline checks).
// Validated with Ajv (draft-07), the validator most JSON tooling uses.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import ajv from 'ajv';
import { IMPORT_SCHEMA_FILE, importSchemaText } from '../../reference-data/generate-import-schema.js';
import { validateImport } from '../../reference-data/validate.js';
import { CREDENTIAL_KEYS, DEVICE_KEYS, GROUP_KEYS, INTEGRATION_KEYS, ORGANIZATION_KEYS, POWER_LINE_KEYS, TOP_LEVEL_KEYS, USER_KEYS } from '../../reference-data/validate.js';
import { RECIPIENT_KEYS, RULE_KEYS } from '../../reference-data/alarms.js';
import { SETTINGS_BY_KIND } from '../../reference-data/integration-settings.js';
import { importFixture } from '../../support/checkins.js';
import { exampleImport, exampleImportAsPrinted } from '../helpers/integration-doc.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const text = readFileSync(IMPORT_SCHEMA_FILE, 'utf8');
const schema = JSON.parse(text) as Obj;
// ajv is CommonJS; its class is the `default` export (so for ESM callers too).
const check = new ajv.default({ allErrors: true }).compile(schema);
const schemaAccepts = (file: unknown) => check(file) === true;
const validatorAccepts = (file: unknown) => validateImport(file).ok;
const fixture = () => structuredClone(importFixture()) as Obj;
const rowOf = (section: string) => (schema.properties[section] as Obj).items as Obj;

test('schemas/import.schema.json is what npm run generate:import-schema writes', () => {
  assert.is(text, importSchemaText(), 'stale: run npm run generate:import-schema');
});

test('it names every field the validator knows, and no other', () => {
  const keys = (s: Obj) => Object.keys(s.properties as Obj).sort();
  assert.equal(Object.keys(schema.properties as Obj).sort(), [...TOP_LEVEL_KEYS].sort());
  const expected: [string, string[]][] = [['organizations', ORGANIZATION_KEYS], ['powerLines', POWER_LINE_KEYS], ['groups', GROUP_KEYS],
    ['devices', DEVICE_KEYS], ['users', USER_KEYS], ['alarmRecipients', RECIPIENT_KEYS], ['alarmRules', RULE_KEYS]];
  for (const [section, fields] of expected) assert.equal(keys(rowOf(section)), [...fields].sort(), section);
  const kinds = (rowOf('integrations').allOf as Obj[]).map((branch) => branch.then as Obj);
  assert.is(kinds.length, Object.keys(SETTINGS_BY_KIND).length);
  for (const k of kinds) {
    const kind = k.properties.kind.const as keyof typeof SETTINGS_BY_KIND;
    const own = [...INTEGRATION_KEYS, ...Object.keys(SETTINGS_BY_KIND[kind]), ...(kind === 'multispeak' ? CREDENTIAL_KEYS : [])];
    assert.equal(keys(k), own.sort(), kind);
  }
});

test('the fixture (test/fixtures/import.json) and docs/examples/import.json are valid, for the schema and the validator', () => {
  for (const file of [fixture(), exampleImport()]) {
    assert.ok(schemaAccepts(file), JSON.stringify(check.errors));
    assert.ok(validatorAccepts(file));
  }
});

// The schema checks the shape, and the example's shape is right; the validator also refuses the secrets it
// leaves at their placeholders (docs/decisions.md#secrets-left-at-their-example), each by field and row.
test('docs/examples/import.json as printed: the schema accepts its shape, the validator refuses its placeholder secrets', () => {
  const printed = exampleImportAsPrinted();
  assert.ok(schemaAccepts(printed), JSON.stringify(check.errors));
  const result = validateImport(printed);
  assert.equal(result.ok ? [] : result.problems.map((p) => p.path).sort(),
    ['alarmRecipients[2].secret', 'integrations[0].password', 'users[0].password', 'users[1].password']);
});

// Each a wrong file made from the fixture: both must refuse it.
const WRONG: Record<string, (f: Obj) => void> = {
  'an unknown section': (f) => { f.device = []; },
  'a section that is not an array': (f) => { f.devices = {}; },
  'an unknown field (a typo)': (f) => { f.devices[0].Real_name = f.devices[0].Real_Name; },
  'an IMEI of 13 digits': (f) => { f.devices[0].IMEINumber = '8610000000000'; },
  'an IMEI with a letter': (f) => { f.devices[0].IMEINumber = '86100000000000A'; },
  'a latitude of 91': (f) => { f.devices[0].Lat = 91; },
  'a longitude as text': (f) => { f.devices[0].Long = '-87.7'; },
  'an unknown phase': (f) => { f.devices[0].Phase = 'D'; },
  'deleted as a string': (f) => { f.devices[0].deleted = 'yes'; },
  'a device without its organisation': (f) => { delete f.devices[0].OrganizationID; },
  'an empty name': (f) => { f.devices[0].Real_Name = ''; },
  'an id with a trailing space': (f) => { f.groups[0].GroupID = 'north-east '; },
  'an id with a control character': (f) => { f.powerLines[0].Id = 'north\u0007F12'; },
  'a group listed twice on a device': (f) => { f.devices[0].groups = ['north-east', 'north-east']; },
  'an organisation without a name': (f) => { delete f.organizations[0].name; },
  'MaskFaultDetails null': (f) => { f.organizations[0].MaskFaultDetails = null; },
  'a user role that does not exist': (f) => { f.users[0].role = 'root'; },
  'a password of 7 characters': (f) => { f.users[0].password = 'short12'; },
  'an email without @': (f) => { f.users[0].email = 'ops.example'; },
  'a DNP3 integration on channel C': (f) => { f.integrations.find((i: Obj) => i.kind === 'dnp3').channel = 'C'; },
  'a MultiSpeak integration with a DNP3 setting': (f) => { f.integrations.find((i: Obj) => i.kind === 'multispeak').outstationAddress = 10; },
  'a MultiSpeak password without userId': (f) => { const m = f.integrations.find((i: Obj) => i.kind === 'multispeak'); delete m.userId; m.password = 'a-password'; },
  'a DNP3 integration without masterIdentity': (f) => { delete f.integrations.find((i: Obj) => i.kind === 'dnp3').masterIdentity; },
  'an outstation address of 65520 (reserved)': (f) => { f.integrations.find((i: Obj) => i.kind === 'dnp3').outstationAddress = 0xfff0; },
  'an unknown integration kind': (f) => { f.integrations[0].kind = 'modbus'; },
  'a MultiSpeak endpoint that is not http(s)': (f) => { f.integrations.find((i: Obj) => i.kind === 'multispeak').endpoint = 'ftp://oms.example/'; },
  'a rule without recipients': (f) => { f.alarmRecipients = [{ id: 'desk', OrganizationID: 'north', channel: 'email', address: 'ops@north.example' }]; f.alarmRules = [{ id: 'r', OrganizationID: 'north', class: 'operations', what: ['permanent'], who: [] }]; },
  'a rule of an unknown kind': (f) => { f.alarmRecipients = [{ id: 'desk', OrganizationID: 'north', channel: 'email', address: 'ops@north.example' }]; f.alarmRules = [{ id: 'r', OrganizationID: 'north', class: 'operations', what: ['earthquake'], who: ['desk'] }]; },
  'a maintenance rule that escalates': (f) => { f.alarmRecipients = [{ id: 'desk', OrganizationID: 'north', channel: 'email', address: 'ops@north.example' }]; f.alarmRules = [{ id: 'r', OrganizationID: 'north', class: 'maintenance', what: ['low-battery'], who: ['desk'], escalation: { afterMinutes: 5, roster: ['desk'] } }]; },
  'hours 25:00': (f) => { f.alarmRecipients = [{ id: 'desk', OrganizationID: 'north', channel: 'email', address: 'ops@north.example' }]; f.alarmRules = [{ id: 'r', OrganizationID: 'north', class: 'operations', what: ['permanent'], who: ['desk'], when: { from: '25:00', to: '07:00' } }]; },
  'an SMS number with letters': (f) => { f.alarmRecipients = [{ id: 'sms', OrganizationID: 'north', channel: 'sms', address: '+1 555 CALL' }]; },
  'a secret on an e-mail recipient': (f) => { f.alarmRecipients = [{ id: 'desk', OrganizationID: 'north', channel: 'email', address: 'ops@north.example', secret: 'sixteen-chars-long!' }]; },
};

test('every wrong file is refused by the schema and by the validator', () => {
  const disagree: string[] = [];
  for (const [name, mutate] of Object.entries(WRONG)) {
    const f = fixture();
    mutate(f);
    if (schemaAccepts(f)) disagree.push(`${name}: the schema accepts it`);
    if (validatorAccepts(f)) disagree.push(`${name}: the validator accepts it`);
  }
  assert.equal(disagree, []);
});

// Each a right file the fixture does not show: both must accept it.
const RIGHT: Record<string, (f: Obj) => void> = {
  'an empty file': (f) => { for (const k of Object.keys(f)) delete f[k]; },
  'optional fields absent': (f) => { f.devices[0] = { IMEINumber: f.devices[0].IMEINumber, OrganizationID: f.devices[0].OrganizationID }; },
  'optional fields null': (f) => { Object.assign(f.devices[0], { Lat: null, Long: null, Phase: null, groups: null, Real_Name: null }); },
  'alarm routing': (f) => {
    f.alarmRecipients = [{ id: 'desk', OrganizationID: 'north', name: 'Ops', channel: 'email', address: 'ops@north.example', capPerDay: 100 },
      { id: 'pager', OrganizationID: 'north', channel: 'sms', address: '+15550100' }];
    f.alarmRules = [{ id: 'r', OrganizationID: 'north', class: 'operations', what: ['permanent', 'probable-temporary'], where: { powerLines: ['north-F12'] }, who: ['desk'],
      when: { days: [1, 2, 3, 4, 5], from: '07:00', to: '17:00' }, escalation: { afterMinutes: 15, roster: ['pager'] } },
    { id: 'm', OrganizationID: 'north', class: 'maintenance', what: ['low-battery'], who: ['desk'], when: 'always', enabled: false }];
  },
};

test('every right file is accepted by both', () => {
  const disagree: string[] = [];
  for (const [name, mutate] of Object.entries(RIGHT)) {
    const f = fixture();
    mutate(f);
    if (!schemaAccepts(f)) disagree.push(`${name}: the schema refuses it: ${JSON.stringify(check.errors?.slice(0, 3))}`);
    const v = validateImport(f);
    if (!v.ok) disagree.push(`${name}: the validator refuses it: ${JSON.stringify(v.problems.slice(0, 3))}`);
  }
  assert.equal(disagree, []);
});

test.run();
