// Property-based fuzz of the queue-message validator (domain/validate-message.ts) with fast-check: for any
// text, any JSON and any mutation of a good message it never throws, answers either an accepted CheckIn or
// a known code with a reason, pollutes no prototype, and an accepted message round-trips (its normal form
// validates again to the same value). Deliberately-broken mutations are refused naming the broken path.
// Deterministic: a fixed seed (FUZZ_SEED overrides it, FUZZ_RUNS scales the run counts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { DEVICE_NUMBER_FIELDS, DEVICE_STRING_FIELDS } from '../../domain/checkin.js';
import { isRejectionCode } from '../../domain/errors.js';
import { parseQueueMessage, validateQueueMessage, type ParseResult } from '../../domain/validate-message.js';
import { fixtureNames, fixtureText } from '../../support/checkins.js';
import { reportTally } from '../helpers/tally.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const runs = (n: number) => ({ seed: SEED, numRuns: Math.max(1, Math.round(n * SCALE)) });
const NOW = Temporal.Instant.from('2026-11-21T00:00:00Z');
let badTried = 0;
let badRefused = 0;

const goodBodies = fixtureNames().map(fixtureText).filter((b) => parseQueueMessage(b).ok);
type Json = Record<string, unknown>;

/** Never throws, and the answer is one of the two documented shapes. */
function check(body: string): ParseResult {
  let r: ParseResult;
  try {
    r = parseQueueMessage(body, { now: NOW });
  } catch (err) {
    throw new Error(`validator threw on ${JSON.stringify(body.slice(0, 200))}`, { cause: err });
  }
  if (r.ok) {
    assert.type(r.value, 'object');
    assert.is(r.imei, r.value.device_data.IMEINumber);
    assert.match(r.imei, /^[0-9]{14,16}$/);
    roundTrip(r);
  } else {
    assert.ok(isRejectionCode(r.code), `known code, got ${String(r.code)}`);
    assert.type(r.reason, 'string');
    assert.ok(r.reason.length > 0, 'a reason');
    assert.ok(r.issues.length > 0 && r.issues.length <= 20, 'one to 20 issues');
    assert.is(r.reason, r.issues.join('; '));
  }
  assert.is(({} as Json).polluted, undefined, 'Object.prototype untouched');
  assert.is(Object.getPrototypeOf({}), Object.prototype);
  return r;
}

/** An accepted message's normal form is accepted again, to the same value. */
function roundTrip(r: Extract<ParseResult, { ok: true }>): void {
  const again = parseQueueMessage(JSON.stringify(r.value), { now: NOW });
  assert.ok(again.ok, `normal form re-validates: ${again.ok ? '' : again.reason}`);
  if (again.ok) assert.equal(again.value, r.value);
}

const jsonish = fc.oneof(
  fc.jsonValue(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('NaN', 'Infinity', '-Infinity', '0x10', '1e400', ' 3.5 ', '', '\u0000', '__proto__', '2999-01-01T00:00:00Z', '1900-01-01T00:00:00Z',
    '2026-11-20T10:00:00+02:00', '2026-11-20T10:00:00', '861000000000000'),
  fc.constant(null), fc.boolean(), fc.double(), fc.integer(),
  fc.array(fc.double(), { minLength: 22, maxLength: 26 }),
);

const PATHS: string[][] = [
  ...['IMEINumber', 'date', 'Ongoing_fault', ...DEVICE_NUMBER_FIELDS, ...DEVICE_STRING_FIELDS].map((f) => ['device_data', f]),
  ['events'], ['events', '0'], ['events', '0', 'EventID'], ['events', '0', 'EventTimestamp'], ['events', '0', 'EventType'], ['events', '0', 'FaultCurrent'],
  ['currents'], ['currents', 'HourlyAverages'], ['currents', 'HourlyAverages', '3'], ['currents', 'PeakCurrent'], ['currents', 'PeakCurrentTimestamp'],
  ['dm1_device'], ['device_data'], ['__proto__'], ['device_data', '__proto__'], ['constructor'], ['device_data', 'constructor'],
];

function setPath(root: Json, path: readonly string[], value: unknown): void {
  let node: Json = root;
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (typeof next !== 'object' || next === null) return;
    node = next as Json;
  }
  Object.defineProperty(node, path[path.length - 1]!, { value, enumerable: true, writable: true, configurable: true });
}

test('any text: never throws, always accept or a code with a reason', () => {
  fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.json(), fc.string({ unit: 'grapheme', maxLength: 100 })), (body) => { check(body); }), runs(3000));
});

test('any JSON value at the root or as device_data: never throws', () => {
  fc.assert(fc.property(fc.jsonValue(), fc.boolean(), (value, wrap) => {
    check(JSON.stringify(wrap ? { device_data: value } : value) ?? 'null');
  }), runs(2000));
});

test('a good message with up to 4 fields set to anything: never throws; accepted ones round-trip', () => {
  fc.assert(fc.property(fc.constantFrom(...goodBodies), fc.array(fc.tuple(fc.constantFrom(...PATHS), jsonish), { minLength: 1, maxLength: 4 }), (base, edits) => {
    const m = JSON.parse(base) as Json;
    for (const [path, value] of edits) setPath(m, path, value);
    check(JSON.stringify(m));
  }), runs(3000));
});

test('a good message cut, or with bytes flipped: never throws', () => {
  fc.assert(fc.property(fc.constantFrom(...goodBodies), fc.nat(), fc.array(fc.tuple(fc.nat(), fc.string({ unit: 'binary', minLength: 1, maxLength: 3 })), { maxLength: 3 }), (base, cut, flips) => {
    let body = base.slice(0, cut % (base.length + 1));
    for (const [at, text] of flips) { const i = at % (body.length + 1); body = body.slice(0, i) + text + body.slice(i + 1); }
    check(body);
  }), runs(2000));
});

test('deliberately broken fields are refused, naming the path', () => {
  const broken: fc.Arbitrary<[readonly string[], unknown]> = fc.oneof(
    fc.tuple(fc.constantFrom(...DEVICE_NUMBER_FIELDS.map((f) => ['device_data', f])), fc.oneof(fc.boolean(), fc.dictionary(fc.string(), fc.integer(), { minKeys: 1 }), fc.constantFrom('NaN', 'Infinity', '0x1F', 'abc', '1e400'))),
    fc.tuple(fc.constantFrom(...DEVICE_STRING_FIELDS.map((f) => ['device_data', f])), fc.oneof(fc.boolean(), fc.array(fc.string(), { minLength: 1 }), fc.dictionary(fc.string(), fc.string(), { minKeys: 1 }))),
    fc.tuple(fc.constant<readonly string[]>(['device_data', 'IMEINumber']), fc.oneof(fc.integer(), fc.string().filter((s) => !/^[0-9]{14,16}$/.test(s)))),
    fc.tuple(fc.constant<readonly string[]>(['device_data', 'date']), fc.oneof(
      fc.date({ min: new Date('1000-01-01'), max: new Date('1999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString()),
      fc.date({ min: new Date('2026-11-22T00:00:01Z'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => d.toISOString()),
      fc.string({ maxLength: 12 }))),
    fc.tuple(fc.constant<readonly string[]>(['currents', 'HourlyAverages']), fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 60 }).filter((a) => a.length !== 24 && a.length !== 0)),
    fc.tuple(fc.constant<readonly string[]>(['device_data', 'Ongoing_fault']), fc.oneof(fc.integer({ max: -1 }), fc.double({ min: 0.1, max: 1e6, noNaN: true }).filter((d) => !Number.isInteger(d)), fc.constant(null))),
  );
  const base = fixtureText('001-plain-checkin.json');
  fc.assert(fc.property(broken, ([path, value]) => {
    const m = JSON.parse(base) as Json;
    setPath(m, path, value);
    badTried++;
    const r = check(JSON.stringify(m));
    assert.not.ok(r.ok, `${path.join('.')} = ${JSON.stringify(value)} refused`);
    if (!r.ok) {
      assert.is(r.code, 'INVALID');
      assert.ok(r.reason.includes(path.join('.')), `reason names ${path.join('.')}: ${r.reason}`);
      badRefused++;
    }
  }), runs(2000));
});

test('already-parsed values (rejected-message resubmission path): never throws, no prototype read', () => {
  fc.assert(fc.property(fc.anything({ withObjectString: true, withNullPrototype: true, withMap: true, withSet: true, withBigInt: true, withDate: true, withTypedArray: true, withSparseArray: true }), (value) => {
    const r = validateQueueMessage({ device_data: value });
    assert.ok(r.ok || isRejectionCode(r.code));
  }), runs(1000));
  // An IMEI only on the prototype is not an IMEI.
  const inherited = Object.create({ IMEINumber: '861000000000000', date: '2026-11-20T10:00:00Z', Ongoing_fault: 0 }) as Json;
  const r = validateQueueMessage({ device_data: inherited });
  assert.not.ok(r.ok);
});

test.after(() => {
  reportTally('validator-fuzz', { badInputsTried: badTried, badInputsRefused: badRefused });
});

test.run();
