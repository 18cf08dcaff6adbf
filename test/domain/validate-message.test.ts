import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Temporal } from 'temporal-polyfill';
import {
  DEFAULT_MAX_MESSAGE_BYTES, isImei, parseQueueMessage, parseQueueMessageOrThrow, validateQueueMessage,
  type ParseOptions,
} from '../../domain/validate-message.js';
import { RejectionError, REJECTION_CODES, isRejectionCode } from '../../domain/errors.js';
import { expectedFor, messageBody, messageFiles } from './fixtures.js';

const IMEI = '861000000000000';
const NOW = Temporal.Instant.from('2026-11-20T16:00:00Z');
type Json = Record<string, unknown>;

/** Fixture 001 as a mutable object, changed by `edit`, back to text. */
function body(edit: (m: Json & { device_data: Json; currents: Json; events: Json[] }) => void): string {
  const message = JSON.parse(messageBody('001-plain-checkin.json'));
  message.events = [{ EventID: 5, EventTimestamp: '2026-11-20T13:59:00Z', EventType: 'PFault', PrefaultCurrent: 10, FaultCurrent: 400, RecoverCurrent: 0 }];
  edit(message);
  return JSON.stringify(message);
}

// ---- every fixture message: expected.json says which are rejected and with which code ----
for (const file of messageFiles()) {
  test(`fixture ${file}`, () => {
    const expected = expectedFor(file);
    const result = parseQueueMessage(messageBody(file), { now: NOW });
    if (expected.rejected) {
      assert.not.ok(result.ok);
      if (!result.ok) assert.is(result.code, expected.rejected);
      return;
    }
    assert.ok(result.ok, result.ok ? '' : result.reason);
    if (!result.ok) return;
    assert.is(result.imei, expected.imei ?? expected.unregistered);
    assert.is(result.value.device_data.IMEINumber, result.imei);
    assert.match(result.value.device_data.date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
}

test('fixture 013 (truncated JSON) still yields the IMEI for the dead-letter key', () => {
  const result = parseQueueMessage(messageBody('013-malformed-json.json'));
  assert.equal(result.ok ? null : [result.code, result.imei], ['MALFORMED', IMEI]);
  assert.match(result.ok ? '' : result.reason, 'body: not valid JSON');
});

test('fixture 014 (no IMEINumber) names the field and has no IMEI', () => {
  const result = parseQueueMessage(messageBody('014-missing-imei.json'));
  assert.equal(result.ok ? null : [result.code, result.reason, result.imei], ['INVALID', 'device_data.IMEINumber: is missing', undefined]);
});

test('fixture 001 is read field by field', () => {
  const result = parseQueueMessage(messageBody('001-plain-checkin.json'));
  if (!result.ok) throw new Error(result.reason);
  const d = result.value.device_data;
  assert.is(d.date, '2026-11-20T14:00:00.000Z');
  assert.is(d.rssi, -71);
  assert.is(d.Tempfault_Reset_Hours, '2');
  assert.is(d.Ongoing_fault, 0);
  assert.is(d.model, 'FCI-3000');
  assert.equal(result.value.events, []);
  assert.is(result.value.currents?.PeakCurrentTimestamp, '2026-11-20T09:12:00.000Z');
  assert.is(result.value.currents?.HourlyAverages.length, 24);
  assert.is(result.value.currents?.HourlyAverages[23], 134.5);
  assert.is(result.value.dm1_device, false);
});

test('fixture 006 keeps the DM1 phase strings', () => {
  const result = parseQueueMessage(messageBody('006-dm1-fault-initial.json'));
  if (!result.ok) throw new Error(result.reason);
  assert.is(result.value.dm1_device, true);
  assert.equal(result.value.events[0], {
    EventID: 3, EventTimestamp: '2026-11-20T14:19:40.000Z', EventType: 'FAULT_INITIAL', PrefaultCurrent: null,
    FaultCurrent: null, RecoverCurrent: null, PhaseAEvent: 'Fault', PhaseBEvent: 'Normal', PhaseCEvent: 'Normal',
  });
});

// ---- bad inputs: [name, body, expected code, substring of the reason, imei on the failure, options] ----
const HOURS = Array.from({ length: 24 }, (_, i) => i);
const bad: [string, string, string, string, string | undefined, ParseOptions?][] = [
  ['empty body', '', 'MALFORMED', 'body: not valid JSON', undefined],
  ['truncated JSON', '{"device_data": {', 'MALFORMED', 'body: not valid JSON', undefined],
  ['root null', 'null', 'MALFORMED', 'body: null is not a JSON object', undefined],
  ['root array', '[{}]', 'MALFORMED', 'body: an array is not a JSON object', undefined],
  ['root number', '42', 'MALFORMED', 'body: 42 is not a JSON object', undefined],
  ['root string', '"hello"', 'MALFORMED', 'body: "hello" is not a JSON object', undefined],
  ['over maxBytes', body(() => {}), 'TOO_LARGE', 'over the 200 byte limit', undefined, { maxBytes: 200 }],
  ['device_data missing', body((m) => { Reflect.deleteProperty(m, 'device_data'); }), 'INVALID', 'device_data: is missing', undefined],
  ['device_data an array', body((m) => { m.device_data = [] as unknown as Json; }), 'INVALID', 'device_data: an array is not an object', undefined],
  ['IMEINumber empty', body((m) => { m.device_data.IMEINumber = ''; }), 'INVALID', 'device_data.IMEINumber: is missing', undefined],
  ['IMEINumber null', body((m) => { m.device_data.IMEINumber = null; }), 'INVALID', 'device_data.IMEINumber: is missing', undefined],
  ['IMEINumber a number', body((m) => { m.device_data.IMEINumber = 861000000000000; }), 'INVALID', 'device_data.IMEINumber: 861000000000000 is not a string', undefined],
  ['IMEINumber letters', body((m) => { m.device_data.IMEINumber = 'abc'; }), 'INVALID', 'device_data.IMEINumber: "abc" is not 14 to 16 digits', undefined],
  ['IMEINumber 13 digits', body((m) => { m.device_data.IMEINumber = '8610000000000'; }), 'INVALID', 'is not 14 to 16 digits', undefined],
  ['IMEINumber 17 digits', body((m) => { m.device_data.IMEINumber = '86100000000000001'; }), 'INVALID', 'is not 14 to 16 digits', undefined],
  ['IMEINumber padded', body((m) => { m.device_data.IMEINumber = ` ${IMEI}`; }), 'INVALID', 'is not 14 to 16 digits', undefined],
  ['date missing', body((m) => { delete m.device_data.date; }), 'INVALID', 'device_data.date: is missing', IMEI],
  ['date words', body((m) => { m.device_data.date = 'yesterday'; }), 'INVALID', 'device_data.date: "yesterday" is not an ISO 8601 timestamp', IMEI],
  ['date without offset', body((m) => { m.device_data.date = '2026-11-20T14:00:00'; }), 'INVALID', 'device_data.date: "2026-11-20T14:00:00" is not an ISO 8601 timestamp with Z or an offset', IMEI],
  ['date impossible day', body((m) => { m.device_data.date = '2026-02-30T00:00:00Z'; }), 'INVALID', 'device_data.date: "2026-02-30T00:00:00Z" is not', IMEI],
  ['date as epoch number', body((m) => { m.device_data.date = 1795183200000; }), 'INVALID', 'device_data.date: 1795183200000 is not an ISO 8601', IMEI],
  ['date 1 ms before 2000', body((m) => { m.device_data.date = '1999-12-31T23:59:59.999Z'; }), 'INVALID', 'is before 2000-01-01T00:00:00.000Z', IMEI],
  ['date 1970 (clock unset)', body((m) => { m.device_data.date = '1970-01-01T00:00:00Z'; }), 'INVALID', 'device_data.date: "1970-01-01T00:00:00Z" is before', IMEI],
  ['date 24 h + 1 ms after now', body((m) => { m.device_data.date = '2026-11-21T16:00:00.001Z'; }), 'INVALID', 'device_data.date: "2026-11-21T16:00:00.001Z" is too far in the future', IMEI, { now: NOW }],
  ['rssi a word', body((m) => { m.device_data.rssi = 'strong'; }), 'INVALID', 'device_data.rssi: "strong" is not a number', IMEI],
  ['rssi a boolean', body((m) => { m.device_data.rssi = true; }), 'INVALID', 'device_data.rssi: true is not a number', IMEI],
  ['rssi hex string', body((m) => { m.device_data.rssi = '0x10'; }), 'INVALID', 'device_data.rssi: "0x10" is not a number', IMEI],
  ['rssi "Infinity"', body((m) => { m.device_data.rssi = 'Infinity'; }), 'INVALID', 'device_data.rssi: "Infinity" is not a number', IMEI],
  ['rssi "NaN"', body((m) => { m.device_data.rssi = 'NaN'; }), 'INVALID', 'device_data.rssi: "NaN" is not a number', IMEI],
  ['rssi 1e400 (JSON gives Infinity)', body(() => {}).replace('"rssi":-71', '"rssi":1e400'), 'INVALID', 'device_data.rssi: Infinity is not a finite number', IMEI],
  ['rssi numeric string with numericStrings off', body((m) => { m.device_data.rssi = '-71'; }), 'INVALID', 'device_data.rssi: "-71" is not a number', IMEI, { numericStrings: false }],
  ['BatteryMCU an object', body((m) => { m.device_data.BatteryMCU = { v: 3 }; }), 'INVALID', 'device_data.BatteryMCU: an object is not a number', IMEI],
  ['model an array', body((m) => { m.device_data.model = ['FCI']; }), 'INVALID', 'device_data.model: an array is not a string', IMEI],
  ['Program a boolean', body((m) => { m.device_data.Program = false; }), 'INVALID', 'device_data.Program: false is not a string', IMEI],
  ['Ongoing_fault missing', body((m) => { delete m.device_data.Ongoing_fault; }), 'INVALID', 'device_data.Ongoing_fault: is missing', IMEI],
  ['Ongoing_fault empty string', body((m) => { m.device_data.Ongoing_fault = ''; }), 'INVALID', 'device_data.Ongoing_fault: is missing', IMEI],
  ['Ongoing_fault fractional', body((m) => { m.device_data.Ongoing_fault = 2.5; }), 'INVALID', 'device_data.Ongoing_fault: 2.5 is not an integer >= 0', IMEI],
  ['Ongoing_fault negative', body((m) => { m.device_data.Ongoing_fault = -1; }), 'INVALID', 'device_data.Ongoing_fault: -1 is not an integer >= 0', IMEI],
  ['events an object', body((m) => { m.events = {} as unknown as Json[]; }), 'INVALID', 'events: an object is not an array', IMEI],
  ['events a string', body((m) => { m.events = 'none' as unknown as Json[]; }), 'INVALID', 'events: "none" is not an array', IMEI],
  ['event not an object', body((m) => { m.events = ['PFault'] as unknown as Json[]; }), 'INVALID', 'events[0]: "PFault" is not an object', IMEI],
  ['EventID missing', body((m) => { delete m.events[0]!.EventID; }), 'INVALID', 'events[0].EventID: is missing', IMEI],
  ['EventID a word', body((m) => { m.events[0]!.EventID = 'five'; }), 'INVALID', 'events[0].EventID: "five" is not a number', IMEI],
  ['EventID fractional', body((m) => { m.events[0]!.EventID = 1.5; }), 'INVALID', 'events[0].EventID: 1.5 is not an integer >= 0', IMEI],
  ['EventID negative', body((m) => { m.events[0]!.EventID = -3; }), 'INVALID', 'events[0].EventID: -3 is not an integer >= 0', IMEI],
  ['EventTimestamp missing', body((m) => { delete m.events[0]!.EventTimestamp; }), 'INVALID', 'events[0].EventTimestamp: is missing', IMEI],
  ['EventTimestamp words', body((m) => { m.events[0]!.EventTimestamp = 'soon'; }), 'INVALID', 'events[0].EventTimestamp: "soon" is not an ISO 8601 timestamp', IMEI],
  ['EventTimestamp before 2000', body((m) => { m.events[0]!.EventTimestamp = '1999-01-01T00:00:00Z'; }), 'INVALID', 'events[0].EventTimestamp: "1999-01-01T00:00:00Z" is before', IMEI],
  ['EventType a number', body((m) => { m.events[0]!.EventType = 5; }), 'INVALID', 'events[0].EventType: 5 is not a string', IMEI],
  ['EventType empty', body((m) => { m.events[0]!.EventType = ''; }), 'INVALID', 'events[0].EventType: is missing', IMEI],
  ['event current a word', body((m) => { m.events[0]!.PrefaultCurrent = 'high'; }), 'INVALID', 'events[0].PrefaultCurrent: "high" is not a number', IMEI],
  ['event phase an object', body((m) => { m.events[0]!.PhaseAEvent = {}; }), 'INVALID', 'events[0].PhaseAEvent: an object is not a string', IMEI],
  ['second event bad, index named', body((m) => { m.events.push({ EventTimestamp: '2026-11-20T13:59:30Z', EventType: 'TFault' }); }), 'INVALID', 'events[1].EventID: is missing', IMEI],
  ['currents an array', body((m) => { m.currents = [] as unknown as Json; }), 'INVALID', 'currents: an array is not an object', IMEI],
  ['HourlyAverages 23 entries', body((m) => { m.currents.HourlyAverages = HOURS.slice(1); }), 'INVALID', 'currents.HourlyAverages: has 23 entries, not 24', IMEI],
  ['HourlyAverages 25 entries', body((m) => { m.currents.HourlyAverages = [...HOURS, 1]; }), 'INVALID', 'currents.HourlyAverages: has 25 entries, not 24', IMEI],
  ['HourlyAverages null entry', body((m) => { m.currents.HourlyAverages = HOURS.map((h) => (h === 3 ? null : h)); }), 'INVALID', 'currents.HourlyAverages[3]: is missing', IMEI],
  ['HourlyAverages word entry', body((m) => { m.currents.HourlyAverages = HOURS.map((h) => (h === 5 ? 'x' : h)); }), 'INVALID', 'currents.HourlyAverages[5]: "x" is not a number', IMEI],
  ['HourlyAverages 1e400 entry', body((m) => { m.currents.HourlyAverages = HOURS.map((h) => (h === 7 ? 12345 : h)); }).replace('12345', '1e400'), 'INVALID', 'currents.HourlyAverages[7]: Infinity is not a finite number', IMEI],
  ['HourlyAverages not an array', body((m) => { m.currents.HourlyAverages = '1,2,3'; }), 'INVALID', 'currents.HourlyAverages: "1,2,3" is not an array', IMEI],
  ['HourlyAverages missing, PeakCurrent set', body((m) => { delete m.currents.HourlyAverages; }), 'INVALID', 'currents.HourlyAverages: is missing', IMEI],
  ['PeakCurrentTimestamp words', body((m) => { m.currents.PeakCurrentTimestamp = 'noon'; }), 'INVALID', 'currents.PeakCurrentTimestamp: "noon" is not an ISO 8601 timestamp', IMEI],
  ['dm1_device a word', body((m) => { m.dm1_device = 'yes'; }), 'INVALID', 'dm1_device: "yes" is not true or false', IMEI],
  ['dm1_device a number', body((m) => { m.dm1_device = 1; }), 'INVALID', 'dm1_device: 1 is not true or false', IMEI],
  ['several problems, all named', body((m) => { m.device_data.date = 'x'; m.device_data.rssi = 'y'; }), 'INVALID', 'device_data.date: "x" is not an ISO 8601 timestamp with Z or an offset; device_data.rssi: "y" is not a number', IMEI],
  ['IMEINumber only in __proto__', body((m) => { delete m.device_data.IMEINumber; }).replace('"device_data":{', `"device_data":{"__proto__":{"IMEINumber":"${IMEI}"},`), 'INVALID', 'device_data.IMEINumber: is missing', undefined],
  ['long values are cut in the reason', body((m) => { m.device_data.date = 'y'.repeat(500); }), 'INVALID', `"${'y'.repeat(60)}..." is not`, IMEI],
];

for (const [name, text, code, reason, imei, options] of bad) {
  test(`rejects: ${name}`, () => {
    const result = parseQueueMessage(text, options);
    assert.not.ok(result.ok, 'accepted');
    if (result.ok) return;
    assert.is(result.code, code);
    assert.ok(result.reason.includes(reason), `reason ${JSON.stringify(result.reason)} lacks ${JSON.stringify(reason)}`);
    assert.is(result.imei, imei);
    assert.ok(isRejectionCode(result.code));
  });
}

test('TOO_LARGE counts UTF-8 bytes, not characters, and the default is 1 MiB', () => {
  const text = body((m) => { m.device_data.Program = 'é'.repeat(600); });
  const limit = text.length + 100; // fits in characters, not in bytes (é is 2 bytes)
  const result = parseQueueMessage(text, { maxBytes: limit });
  assert.is(result.ok ? 'ok' : result.code, 'TOO_LARGE');
  assert.ok(parseQueueMessage(text, { maxBytes: text.length + 600 }).ok, 'exactly at the limit is accepted');
  assert.is(DEFAULT_MAX_MESSAGE_BYTES, 1048576);
  const big = body((m) => { m.device_data.Program = 'x'.repeat(DEFAULT_MAX_MESSAGE_BYTES); });
  assert.is((parseQueueMessage(big) as { code?: string }).code, 'TOO_LARGE');
});

// ---- tolerated inputs: [name, body, options, check of the parsed value] ----
type Parsed = Extract<ReturnType<typeof parseQueueMessage>, { ok: true }>['value'];
const tolerated: [string, string, ParseOptions, (v: Parsed) => unknown, unknown][] = [
  ['numeric string for a number', body((m) => { m.device_data.rssi = '-71'; }), {}, (v) => v.device_data.rssi, -71],
  ['numeric string with blanks', body((m) => { m.device_data.BatteryMCU = ' 3.61 '; }), {}, (v) => v.device_data.BatteryMCU, 3.61],
  ['exponent string', body((m) => { m.device_data.PeakCurrent24h = '2.1e2'; }), {}, (v) => v.device_data.PeakCurrent24h, 210],
  ['empty string for an optional number', body((m) => { m.device_data.rssi = ''; }), {}, (v) => v.device_data.rssi, null],
  ['number for a string field', body((m) => { m.device_data.Tempfault_Reset_Hours = 2; }), {}, (v) => v.device_data.Tempfault_Reset_Hours, '2'],
  ['EventID as a string', body((m) => { m.events[0]!.EventID = '101'; }), {}, (v) => v.events[0]?.EventID, 101],
  ['missing optional field is null', body((m) => { delete m.device_data.Temperature; }), {}, (v) => v.device_data.Temperature, null],
  ['null optional field is null', body((m) => { m.device_data.model = null; }), {}, (v) => v.device_data.model, null],
  ['unknown extra fields are dropped', body((m) => { m.device_data.Extra = 1; m.extra = 2; }), {}, (v) => [Object.hasOwn(v.device_data, 'Extra'), Object.hasOwn(v, 'extra')], [false, false]],
  ['offset normalised to UTC', body((m) => { m.device_data.date = '2026-11-20T15:00:00+01:00'; }), {}, (v) => v.device_data.date, '2026-11-20T14:00:00.000Z'],
  ['negative offset', body((m) => { m.device_data.date = '2026-11-20T08:00:00-06:00'; }), {}, (v) => v.device_data.date, '2026-11-20T14:00:00.000Z'],
  ['microseconds truncated to ms', body((m) => { m.device_data.date = '2026-11-20T14:00:00.123999Z'; }), {}, (v) => v.device_data.date, '2026-11-20T14:00:00.123Z'],
  ['2000-01-01T00:00:00Z exactly', body((m) => { m.device_data.date = '2000-01-01T00:00:00Z'; }), {}, (v) => v.device_data.date, '2000-01-01T00:00:00.000Z'],
  ['exactly 24 h after now', body((m) => { m.device_data.date = '2026-11-21T16:00:00Z'; }), { now: NOW }, (v) => v.device_data.date, '2026-11-21T16:00:00.000Z'],
  ['far future without now', body((m) => { m.device_data.date = '2040-01-01T00:00:00Z'; }), {}, (v) => v.device_data.date, '2040-01-01T00:00:00.000Z'],
  ['maxFutureMs option', body((m) => { m.device_data.date = '2026-11-20T16:05:00Z'; }), { now: NOW, maxFutureMs: 600_000 }, (v) => v.device_data.date, '2026-11-20T16:05:00.000Z'],
  ['no offset read as UTC when asked', body((m) => { m.device_data.date = '2026-11-20T14:00:00'; }), { naiveTimestamps: 'utc' }, (v) => v.device_data.date, '2026-11-20T14:00:00.000Z'],
  ['events missing', body((m) => { Reflect.deleteProperty(m, 'events'); }), {}, (v) => v.events, []],
  ['events null', body((m) => { m.events = null as unknown as Json[]; }), {}, (v) => v.events, []],
  ['currents missing', body((m) => { Reflect.deleteProperty(m, 'currents'); }), {}, (v) => v.currents, null],
  ['currents empty object', body((m) => { m.currents = {}; }), {}, (v) => v.currents, null],
  ['currents with empty HourlyAverages only', body((m) => { m.currents = { HourlyAverages: [] }; }), {}, (v) => v.currents, null],
  ['currents without peak', body((m) => { m.currents = { HourlyAverages: HOURS }; }), {}, (v) => v.currents, { PeakCurrent: null, PeakCurrentTimestamp: null, HourlyAverages: HOURS }],
  ['dm1_device missing', body((m) => { delete m.dm1_device; }), {}, (v) => v.dm1_device, false],
  ['16-digit IMEISV', body((m) => { m.device_data.IMEINumber = '8610000000000001'; }), {}, (v) => v.device_data.IMEINumber, '8610000000000001'],
  ['14-digit IMEI', body((m) => { m.device_data.IMEINumber = '86100000000000'; }), {}, (v) => v.device_data.IMEINumber, '86100000000000'],
  ['Ongoing_fault as a string', body((m) => { m.device_data.Ongoing_fault = '4'; }), {}, (v) => v.device_data.Ongoing_fault, 4],
];

for (const [name, text, options, pick, want] of tolerated) {
  test(`accepts: ${name}`, () => {
    const result = parseQueueMessage(text, options);
    if (!result.ok) return assert.unreachable(`rejected: ${result.reason}`);
    assert.equal(pick(result.value), want);
  });
}

test('__proto__ and constructor keys pollute nothing', () => {
  const text = body(() => {})
    .replace('{"device_data":{', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"device_data":{"__proto__":{"Ongoing_fault":9,"polluted":3},"constructor":"x",');
  const result = parseQueueMessage(text);
  if (!result.ok) throw new Error(result.reason);
  assert.is(({} as Json).polluted, undefined);
  assert.is(Object.getPrototypeOf(result.value.device_data), Object.prototype);
  assert.is(Object.hasOwn(result.value, '__proto__'), false);
  assert.is(Object.hasOwn(result.value.device_data, '__proto__'), false);
  assert.is(Object.hasOwn(result.value.device_data, 'constructor'), false);
  assert.is(result.value.device_data.Ongoing_fault, 0);
});

test('inherited fields are not read (a caller passing a non-JSON object)', () => {
  const inherited = Object.create(JSON.parse(messageBody('001-plain-checkin.json')));
  const result = validateQueueMessage(inherited);
  assert.equal(result.ok ? null : [result.code, result.reason], ['INVALID', 'device_data: is missing']);
});

test('validateQueueMessage takes a parsed value', () => {
  const result = validateQueueMessage(JSON.parse(messageBody('004-current-reset.json')));
  assert.is(result.ok && result.value.events[0]?.EventType, 'Current Reset');
  assert.is((validateQueueMessage(undefined) as { code?: string }).code, 'MALFORMED');
});

test('parseQueueMessageOrThrow throws a RejectionError carrying code, status and IMEI', () => {
  assert.is(parseQueueMessageOrThrow(messageBody('001-plain-checkin.json')).device_data.IMEINumber, IMEI);
  try {
    parseQueueMessageOrThrow(body((m) => { m.device_data.date = 'yesterday'; }));
    assert.unreachable('did not throw');
  } catch (err) {
    assert.instance(err, RejectionError);
    const e = err as RejectionError;
    assert.equal([e.code, e.status, e.retriable, e.imei], ['INVALID', 400, false, IMEI]);
    assert.match(e.message, 'device_data.date: "yesterday" is not an ISO 8601 timestamp');
  }
});

test('error table: every code has a status and a message; RejectionError defaults the message', () => {
  assert.equal(Object.keys(REJECTION_CODES).sort(), ['INVALID', 'MALFORMED', 'TOO_LARGE', 'UNKNOWN_DEVICE']);
  assert.is(new RejectionError('UNKNOWN_DEVICE').message, REJECTION_CODES.UNKNOWN_DEVICE.message);
  assert.is(new RejectionError('TOO_LARGE').status, 413);
  assert.not.ok(isRejectionCode('toString'));
});

test('isImei', () => {
  assert.equal([IMEI, '86100000000000', '8610000000000001', '8610000000000', '86100000000000012', 'x', 861000000000000].map(isImei),
    [true, true, true, false, false, false, false]);
});

test.run();

test('a NUL character (U+0000) in a stored string or an EventType is refused with the field named', () => {
  const base = JSON.parse(messageBody('001-plain-checkin.json')) as { device_data: Record<string, unknown>; events: unknown[] };
  const model = parseQueueMessage(JSON.stringify({ ...base, device_data: { ...base.device_data, model: 'FCI\u00003000' } }));
  assert.equal(model.ok ? null : [model.code, model.reason], ['INVALID', 'device_data.model: contains a NUL character (U+0000), which cannot be stored']);
  const event = { EventID: 1, EventTimestamp: '2026-11-20T13:59:00Z', EventType: 'PFault\u0000' };
  const type = parseQueueMessage(JSON.stringify({ ...base, events: [event] }));
  assert.equal(type.ok ? null : [type.code, type.reason], ['INVALID', 'events[0].EventType: contains a NUL character (U+0000), which cannot be stored']);
});
