// Each fault fact has one definition (docs/decisions.md#fault-facts): the event types and their classes in
// domain/fault-events.ts, the code classes in domain/ongoing-fault-codes.ts. This suite ties every user to
// them: no production file spells a list of fault event types of its own, the migrations' lists are the
// table's, and the DNP3 binaries, the alarm kinds and the incident rules give the same class for every code
// and type. A new copy anywhere in the tree fails here without anyone naming the file.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ALARM_KINDS, kindOfCode } from '../../domain/alarm-kinds.js';
import { FAULT_EVENT_TYPES, FAULT_EVENTS, SHIFT_TYPES, faultClassOf, isFaultEventType, sqlTypeList } from '../../domain/fault-events.js';
import { incidentKind } from '../../domain/incident-rules.js';
import { FAULT_CODE_CLASSES, ONGOING_FAULT, inCodeClass } from '../../domain/ongoing-fault-codes.js';
import { BINARY_POINTS, type DeviceSnapshot } from '../../dnp3/data/point-map.js';

const test = suite('fault facts');
const root = new URL('../..', import.meta.url).pathname;
const SKIP = new Set(['node_modules', 'test', 'dist', '.infra', '.data', '.git', 'bench', 'support']);
// The one owner, and the simulators, whose scenarios name the types a device would report (they are devices).
const OWNERS = new Set(['domain/fault-events.ts', 'simulator/fleet.ts', 'simulator/feeder-faults.ts']);

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (/\.(ts|tsx|sql)$/.test(name)) out.push(relative(root, path));
  }
  return out;
}

const quoted = (t: string) => new RegExp(`['"]${t.replace(/[<]/g, '\\$&')}['"]`);

test('no production file outside the table lists fault event types of its own', () => {
  const offenders: string[] = [];
  for (const file of sources(root)) {
    if (OWNERS.has(file) || file.startsWith('schemas/migrations/')) continue;
    readFileSync(join(root, file), 'utf8').split('\n').forEach((line, n) => {
      // Two or more types on one line is a list (a single type in a switch or a doc example is a rule about it).
      const named = FAULT_EVENT_TYPES.filter((t) => quoted(t).test(line));
      if (named.length >= 2) offenders.push(`${file}:${n + 1}: ${named.join(', ')}`);
    });
  }
  assert.equal(offenders, [], `fault event types listed outside domain/fault-events.ts:\n${offenders.join('\n')}`);
});

test("the migrations' partial indexes and incident trigger spell exactly the table's list", () => {
  const lists = sources(root).filter((f) => f.startsWith('schemas/migrations/'))
    .flatMap((f) => [...readFileSync(join(root, f), 'utf8').matchAll(/"EventType" in (\([^)]*\))/g)].map((m) => ({ f, list: m[1]! })));
  assert.ok(lists.length >= 5, 'the read-interface indexes and the incident trigger are found');
  for (const { f, list } of lists) {
    // fault-compute's shift types are the other list a statement may spell (built from SHIFT_TYPES today).
    if (list === sqlTypeList(SHIFT_TYPES)) continue;
    assert.is(list, sqlTypeList(FAULT_EVENT_TYPES), f);
  }
});

test('the table: seven types, case-insensitive membership, classes only where the type says duration', () => {
  assert.is(FAULT_EVENTS.length, new Set(FAULT_EVENT_TYPES).size);
  assert.ok(isFaultEventType('pfault') && !isFaultEventType('Current Reset') && !isFaultEventType('Model Change'));
  assert.equal(FAULT_EVENT_TYPES.filter((t) => faultClassOf(t) === 'permanent'), ['PFault', 'SOTF']);
  assert.equal(FAULT_EVENT_TYPES.filter((t) => faultClassOf(t) === 'momentary'), ['TFault', 'Fault <50']);
  assert.is(incidentKind(['Fault Like', 'TFault']), 'momentary');
  assert.is(incidentKind(['TFault', 'SOTF']), 'permanent');
});

const snapshot = (code: number): DeviceSnapshot => ({
  imei: 'x', slot: 0, name: null, date: 0, actualOngoingFault: code, batteryOrLine: 0, averageCurrent1m: null, prefaultCurrent: null,
  faultCurrent: null, faultTime: null, peakCurrent24h: null, averageCurrent1h: null, batteryMcu: null, temperature: null,
});
const binary = (name: string) => BINARY_POINTS.find((p) => p.name === name)!;

test('every code: the DNP3 binaries and the alarm kinds read the same class (11 is temporary)', () => {
  const pairs: [string, keyof typeof FAULT_CODE_CLASSES, string][] = [
    ['permanent fault', 'permanent', 'permanent'], ['temporary fault', 'temporary', 'temporary'], ['over current', 'overCurrent', 'over-current'],
    ['current reset', 'currentReset', 'current-reset'], ['low battery', 'lowBattery', 'low-battery'],
  ];
  const codes = [...Object.values(ONGOING_FAULT), 7, 99, 999];
  for (const code of codes) {
    for (const [point, cls, kind] of pairs) {
      const inClass = inCodeClass(cls, code);
      assert.is(binary(point).test(snapshot(code), false), inClass, `${point} for code ${code}`);
      assert.is(kindOfCode(code) === kind, inClass, `alarm kind for code ${code}`);
    }
  }
  assert.ok(inCodeClass('temporary', ONGOING_FAULT.PROBABLE_TEMP_FAULT));
  // Each fault-code alarm kind takes its codes from the class table (no bare numbers of its own).
  const classArrays = new Set<readonly number[]>(Object.values(FAULT_CODE_CLASSES));
  for (const k of ALARM_KINDS.filter((x) => x.source === 'fault-code')) assert.ok(classArrays.has(k.codes), k.id);
});

test.run();
