// docs/integration.md against the code, without servers: every import section and field, every integration
// setting (type, default, example), the webhook's headers and signature, one webhook body per alarm kind and
// message type, the DNP3 point tables, the DNP3 JSON fields, and the MultiSpeak notification samples. Each list
// is enumerated from the code, so a setting, kind, point or operation added later fails here until documented.
// The suites under test/integration/docs/ check the samples against the running product.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, IDEMPOTENCY_HEADER, webhookSignature } from '../../alarms/channels/webhook.js';
import { ALARM_KINDS, kindOfCode } from '../../domain/alarm-kinds.js';
import type { MessageKind } from '../../domain/alarm-message.js';
import { ONGOING_FAULT, ONGOING_FAULT_TEXT } from '../../domain/ongoing-fault-codes.js';
import { integrationFromRow } from '../../dnp3/identity.js';
import { iec104IntegrationFromRow } from '../../iec104/identity.js';
import type { IntegrationKind, StoredIntegration } from '../../integrations/store.js';
import { checkAnswer } from '../../multispeak/delivery/answer.js';
import { buildRequest } from '../../multispeak/build.js';
import { multiSpeakSettings } from '../../multispeak/integration.js';
import { OPERATIONS } from '../../multispeak/operations.js';
import { VERSIONS, soapAction } from '../../multispeak/versions.js';
import { DEVICE_ANALOG_POINTS, DEVICE_BINARY_POINTS, type DeviceSnapshot } from '../../points/device-points.js';
import { LINE_ANALOG, LINE_BINARY } from '../../points/power-lines.js';
import { RECIPIENT_KEYS, RULE_KEYS } from '../../reference-data/alarms.js';
import { SETTINGS_BY_KIND } from '../../reference-data/integration-settings.js';
import {
  CREDENTIAL_KEYS, DEVICE_KEYS, GROUP_KEYS, INTEGRATION_KEYS, ORGANIZATION_KEYS, POWER_LINE_KEYS, TOP_LEVEL_KEYS, USER_KEYS, parseImport, validateImport,
} from '../../reference-data/validate.js';
import { SERVED_OPERATIONS } from '../../api/soap/operations.js';
import { fault } from '../multispeak/notifications.js';
import { anchorOf, codeSpans, docSample, docSamples, docTable, docText, EXAMPLES_DIR, withRealSecrets } from '../helpers/integration-doc.js';
import { xmlTree } from '../helpers/xml-tree.js';

type Section = (typeof TOP_LEVEL_KEYS)[number];
const FIELDS: Record<Section, readonly string[]> = {
  organizations: ORGANIZATION_KEYS, powerLines: POWER_LINE_KEYS, groups: GROUP_KEYS, devices: DEVICE_KEYS, users: USER_KEYS,
  integrations: [...INTEGRATION_KEYS, ...CREDENTIAL_KEYS], alarmRecipients: RECIPIENT_KEYS, alarmRules: RULE_KEYS,
};
// Every message type (a Record over the union: a type added to MessageKind fails to compile here until listed).
const MESSAGE_SAMPLES: Record<MessageKind, string> = {
  raised: 'webhook-raised-permanent', cleared: 'webhook-cleared', escalated: 'webhook-escalated', digest: 'webhook-digest', 'digest-end': 'webhook-digest-end',
  'fleet-digest': 'webhook-fleet-digest',
};
// Its placeholder secrets made real, as the import wants them (test/helpers/integration-doc.ts withRealSecrets).
const exampleImport = () => JSON.parse(withRealSecrets(readFileSync(`${EXAMPLES_DIR}import.json`, 'utf8'))) as Record<Section, Record<string, unknown>[]>;

test('the contents list links every heading of the page, and every link is a heading', () => {
  const text = docText();
  const headings = [...text.matchAll(/^#{2,3} (.+)$/gm)].map((m) => anchorOf(m[1]!)).filter((a) => a !== 'contents');
  const contents = text.slice(text.indexOf('## Contents'), text.indexOf('\n## ', text.indexOf('## Contents') + 5));
  const linked = [...contents.matchAll(/\]\(#([a-z0-9-]+)\)/g)].map((m) => m[1]!);
  assert.equal(linked, headings);
});

test('every import section has a table listing exactly its fields', () => {
  for (const section of TOP_LEVEL_KEYS) {
    const documented = docTable(`import-${section}`).flatMap((row) => codeSpans(row[0]!));
    assert.equal([...documented].sort(), [...FIELDS[section]].sort(), section);
  }
});

test('docs/examples/import.json validates and uses every section, field and integration setting', () => {
  const file = exampleImport();
  const result = validateImport(file);
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  assert.equal(result.warnings, []);
  for (const section of TOP_LEVEL_KEYS) {
    const used = new Set(file[section].flatMap((row) => Object.keys(row)));
    const settingsKeys = section === 'integrations' ? Object.values(SETTINGS_BY_KIND).flatMap((s) => Object.keys(s)) : [];
    assert.equal(FIELDS[section].filter((f) => !used.has(f)), [], `${section}: fields the example does not use`);
    assert.equal([...used].filter((f) => !FIELDS[section].includes(f) && !settingsKeys.includes(f)), [], `${section}: unknown fields`);
  }
  for (const kind of Object.keys(SETTINGS_BY_KIND) as IntegrationKind[]) {
    const used = new Set(file.integrations.filter((i) => i.kind === kind).flatMap((i) => Object.keys(i)));
    assert.equal(Object.keys(SETTINGS_BY_KIND[kind]).filter((k) => !used.has(k)), [], `${kind} settings the example does not use`);
  }
});

// --- integration settings -------------------------------------------------------------------------------

const REQUIRED: Record<IntegrationKind, Record<string, unknown>> = {
  multispeak: { endpoint: 'https://oms.example.com/OA_Server', operation: 'ODEventNotification' },
  dnp3: { masterIdentity: 'scada.example.com' },
  iec104: { masterIdentity: 'rtu.example.com' },
};
const CHANNEL: Record<IntegrationKind, string> = { multispeak: 'C', dnp3: 'A', iec104: 'A' };

/** The problems the importer finds in one integration of `kind` with `settings` over the required ones. */
function problemsWith(kind: IntegrationKind, settings: Record<string, unknown>): string[] {
  const base: Record<string, unknown> = { id: 'i1', OrganizationID: 'o1', kind, channel: CHANNEL[kind], ...REQUIRED[kind], ...settings };
  for (const [k, v] of Object.entries(base)) if (v === undefined) delete base[k];
  const { problems } = parseImport({ integrations: [base] });
  return problems.map((p) => `${p.path}: ${p.message}`);
}

/** The value a consumer applies for `key` (the same vocabulary as the file: "1.3", seconds). */
function applied(kind: IntegrationKind, settings: Record<string, unknown>, key: string): unknown {
  const s = { ...REQUIRED[kind], ...settings };
  if (kind === 'multispeak') {
    const row = { id: 'i1', OrganizationID: 'o1', company: 'O', channel: 'C', kind, enabled: true, settings: s, credentials: null } as unknown as StoredIntegration;
    return (multiSpeakSettings(row) as unknown as Record<string, unknown>)[key];
  }
  const tls = (v: unknown) => (typeof v === 'string' ? v.replace(/^TLSv/, '') : v);
  if (kind === 'dnp3') {
    const i = integrationFromRow({ id: 'i1', OrganizationID: 'o1', settings: s })! as unknown as Record<string, unknown>;
    return key === 'tlsMinVersion' ? tls(i[key]) : i[key];
  }
  const i = iec104IntegrationFromRow({ id: 'i1', OrganizationID: 'o1', settings: s })!;
  if (key === 'k' || key === 'w') return i.timers[key];
  if (/^t[0-3]$/.test(key)) return i.timers[`${key}Ms` as 't0Ms'] / 1000;
  return key === 'tlsMinVersion' ? tls(i.tlsMinVersion) : (i as unknown as Record<string, unknown>)[key];
}

/** What the type cell promises, tried on the importer: accepted at the edges, refused past them. */
function checkType(kind: IntegrationKind, key: string, type: string): void {
  const ok = (v: unknown) => assert.equal(problemsWith(kind, { [key]: v }), [], `${kind}.${key} = ${JSON.stringify(v)} accepted (${type})`);
  const refused = (v: unknown) => assert.ok(problemsWith(kind, { [key]: v }).length > 0, `${kind}.${key} = ${JSON.stringify(v)} refused (${type})`);
  const range = /(integer|number) (-?[\d.]+)\.\.(-?[\d.]+)/.exec(type);
  const length = /\((\d+)\)/.exec(type);
  const choices = [...type.matchAll(/`"([^"`]+)"`/g)].map((m) => m[1]!);
  if (range) {
    const [min, max] = [Number(range[2]), Number(range[3])];
    ok(min); ok(max); refused(max + 1); refused(min - (range[1] === 'integer' ? 1 : min / 2)); refused(String(min));
    if (range[1] === 'integer') refused(min + 0.5);
  } else if (type === 'boolean') {
    ok(true); ok(false); refused('true');
  } else if (choices.length > 0) {
    for (const c of choices) ok(c);
    refused('not-a-choice'); refused(1);
  } else if (key === 'operation') {
    for (const op of OPERATIONS) ok(op);
    refused('SCADAStatusChanged');
  } else if (/URL/.test(type) && length) {
    const base = 'https://oms.example.com/';
    ok(base + 'a'.repeat(Number(length[1]) - base.length)); refused(base + 'a'.repeat(Number(length[1]) - base.length + 1));
    refused('ftp://oms.example.com/x'); refused('https://user:pw@oms.example.com/x');
  } else if (length) {
    ok('a'.repeat(Number(length[1]))); refused('a'.repeat(Number(length[1]) + 1)); refused(''); refused(5);
  } else {
    assert.unreachable(`${kind}.${key}: type "${type}" says nothing the test can try`);
  }
  if (/required/.test(type)) assert.ok(problemsWith(kind, { [key]: undefined }).some((p) => p.includes(`.${key}: is required`)), `${kind}.${key} required`);
  else assert.equal(problemsWith(kind, {}), [], `${kind}.${key} optional`);
}

test('every integration setting is documented with its type, default and an example, per kind', () => {
  for (const kind of Object.keys(SETTINGS_BY_KIND) as IntegrationKind[]) {
    const rows = docTable(`settings-${kind}`);
    assert.equal(rows.map((r) => codeSpans(r[0]!)[0]).sort(), Object.keys(SETTINGS_BY_KIND[kind]).sort(), `${kind}: the settings`);
    for (const [name, type, dflt, meaning, example] of rows) {
      const key = codeSpans(name!)[0]!;
      assert.ok(meaning!.length > 10, `${kind}.${key} has a meaning`);
      checkType(kind, key, type!);
      // The example imports cleanly, and the consumer applies it as given.
      const value = JSON.parse(codeSpans(example!)[0] ?? 'undefined') as unknown;
      assert.equal(problemsWith(kind, { [key]: value }), [], `${kind}.${key} example`);
      assert.equal(applied(kind, { [key]: value }, key), value, `${kind}.${key}: the example is what the integration uses`);
      // The default: a JSON value is what the consumer applies when the key is absent; text means "none of ours".
      const literal = /^`(.+)`$/.exec(dflt!)?.[1];
      if (/required/.test(type!)) assert.is(dflt, '', `${kind}.${key} is required: no default`);
      else if (literal !== undefined && !/^[A-Z][A-Z0-9_]+$/.test(literal)) assert.equal(applied(kind, {}, key), JSON.parse(literal), `${kind}.${key} default`);
      else assert.is(applied(kind, {}, key), undefined, `${kind}.${key}: "${dflt}" is no value of the integration's own`);
    }
  }
});

// --- webhooks ---------------------------------------------------------------------------------------------

test('the header table names the headers the sender sets', () => {
  const names = docTable('webhook-headers').map((r) => codeSpans(r[0]!)[0]);
  for (const h of [SIGNATURE_HEADER, TIMESTAMP_HEADER, IDEMPOTENCY_HEADER, 'content-type']) assert.ok(names.includes(h), h);
});

test('the worked signature example is what the sender computes', () => {
  const text = docSample('signature-example');
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(text)![1]!;
  const secret = /with secret `([^`]+)`/.exec(docText())![1]!;
  assert.is(field('signed text'), `${field('x-faultline-timestamp')}.${field('body')}`);
  assert.is(field('x-faultline-signature'), webhookSignature(secret, field('x-faultline-timestamp'), field('body')));
});

test('one raised body per alarm kind, one body per message type, and the kinds table is the code\'s', () => {
  const samples = docSamples();
  for (const k of ALARM_KINDS) {
    const body = JSON.parse(samples.get(`webhook-raised-${k.id}`)?.text ?? 'null') as Record<string, unknown> | null;
    assert.ok(body, `a raised body for ${k.id}`);
    assert.equal([body!.type, body!.kind, body!.label], ['raised', k.id, k.label]);
  }
  for (const [type, name] of Object.entries(MESSAGE_SAMPLES)) assert.is((JSON.parse(docSample(name)) as { type: string }).type, type);
  const rows = docTable('alarm-kinds');
  assert.equal(rows.map((r) => [codeSpans(r[0]!)[0], r[1]]), ALARM_KINDS.map((k) => [k.id, k.label]));
  for (const k of ALARM_KINDS.filter((x) => x.source === 'fault-code')) {
    const cell = rows.find((r) => codeSpans(r[0]!)[0] === k.id)![2]!;
    assert.equal([...cell.matchAll(/\d+/g)].map(Number).sort((a, b) => a - b), [...k.codes].sort((a, b) => a - b), `${k.id} codes`);
  }
});

test('the body field table lists exactly the fields of the bodies shown', () => {
  const documented = docTable('webhook-fields').flatMap((r) => codeSpans(r[0]!));
  const shown = new Set([...docSamples()].filter(([n]) => n.startsWith('webhook-')).flatMap(([, s]) => Object.keys(JSON.parse(s.text) as object)));
  assert.equal([...documented].sort(), [...shown].sort());
});

// --- DNP3 points -------------------------------------------------------------------------------------------

const CODES = Object.values(ONGOING_FAULT) as number[];
const snapshot = (code: number | null, batteryOrLine: number | null = null) => ({ actualOngoingFault: code, batteryOrLine }) as DeviceSnapshot;
const numbers = (cell: string) => [...cell.matchAll(/\b\d+\b/g)].map(Number).sort((a, b) => a - b);

test('binary inputs of a device: the code\'s points, and the codes that set each', () => {
  const rows = docTable('dnp3-binary');
  assert.equal(rows.map((r) => [Number(r[0]), r[1]]), DEVICE_BINARY_POINTS.map((p) => [p.k, p.name]));
  for (const p of DEVICE_BINARY_POINTS) {
    const setBy = CODES.filter((c) => p.test(snapshot(c), false)).sort((a, b) => a - b);
    const cell = rows[p.k]![2]!;
    if (p.k === 0) { assert.equal(setBy, CODES.filter((c) => c > 0).sort((a, b) => a - b)); assert.match(cell, /any code above 0/); continue; }
    if (setBy.length === 0) assert.match(cell, /^never/, `k${p.k} ${p.name}: no code sets it`);
    else assert.equal(numbers(cell), setBy, `k${p.k} ${p.name}`);
  }
  // k6 also follows the clock, k7 BatteryOrLine, as the table says.
  assert.ok(DEVICE_BINARY_POINTS[6]!.test(snapshot(0), true));
  assert.equal([0, 1, null].map((b) => DEVICE_BINARY_POINTS[7]!.test(snapshot(0, b), false)), [true, false, false]);
});

test('fault code table: every code, its text, the binaries it sets, the alarm kind it raises', () => {
  const rows = docTable('dnp3-fault-codes');
  const expected = CODES.sort((a, b) => a - b).map((c) => {
    const set = DEVICE_BINARY_POINTS.filter((p) => p.test(snapshot(c), false)).map((p) => `k${p.k}`);
    const kind = kindOfCode(c);
    return [String(c), ONGOING_FAULT_TEXT.get(c), set.length ? set.join(', ') : 'none', kind ? `\`${kind}\`` : 'none'];
  });
  assert.equal(rows, expected);
  assert.equal(DEVICE_BINARY_POINTS.filter((p) => p.test(snapshot(777), false)).map((p) => p.k), [0], 'an unknown code sets k0 only');
});

test('analog inputs of a device and the incident points of a power line are the code\'s', () => {
  assert.equal(docTable('dnp3-analog'), DEVICE_ANALOG_POINTS.map((p) => [String(p.k), p.name, p.unit ?? '', String(p.deadband ?? 0)]));
  assert.equal(docTable('dnp3-line-binary'), LINE_BINARY.map((p) => [String(p.k), p.name]));
  assert.equal(docTable('dnp3-line-analog'), LINE_ANALOG.map((p) => [String(p.k), p.name]));
});

test('the head of the CSV sample is the head of the committed point map', () => {
  const csv = readFileSync(`${EXAMPLES_DIR}dnp3-point-map.csv`, 'utf8').split('\r\n');
  const head = docSample('point-map-csv-head').split('\n');
  assert.equal(head, csv.slice(0, head.length));
});

test('DNP3 JSON topic: the field table lists exactly the sample\'s fields', () => {
  const sample = JSON.parse(docSample('dnp3-json')) as Record<string, unknown>;
  assert.equal(docTable('dnp3-json-fields').map((r) => codeSpans(r[0]!)[0]), Object.keys(sample));
});

// --- MultiSpeak -------------------------------------------------------------------------------------------

test('a request and a response sample for every operation our endpoint serves, in each version', () => {
  const samples = docSamples();
  for (const v of VERSIONS) {
    for (const op of SERVED_OPERATIONS) {
      for (const part of ['request', 'response']) {
        const s = samples.get(`server-${v}-${op}-${part}`);
        assert.ok(s, `server-${v}-${op}-${part}`);
        const body = xmlTree(s!.text).children.find((c) => c.name.endsWith('}Body'))!;
        assert.is(body.children[0]!.name, `{${v === '4.1' ? 'http://www.multispeak.org/Version_4.1_Release' : 'http://www.multispeak.org/Version_3.0'}}${op}${part === 'response' ? 'Response' : ''}`);
      }
    }
  }
});

test('every notification sample request is the envelope faultline builds; its response counts as delivered', () => {
  const text = docText();
  for (const v of VERSIONS) {
    for (const op of OPERATIONS) {
      const built = buildRequest(v, op, fault(), { userId: 'fi-north', password: 'example-password' }, new Date('2026-11-20T08:30:05.000Z'), 'North Utility');
      assert.equal(xmlTree(docSample(`notification-${v}-${op}-request`)), xmlTree(built.xml), `${v} ${op}`);
      assert.ok(text.includes(`#### ${op} ${v}\n\nSOAPAction: \`${soapAction(v, op)}\``), `${v} ${op} SOAPAction`);
      checkAnswer({ status: 200, body: docSample(`notification-${v}-${op}-response`) });
    }
  }
});

test.run();
