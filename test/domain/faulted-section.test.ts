import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeSection, faultedSections, type FeederDevice } from '../../domain/faulted-section.js';
import type { Phase } from '../../domain/feeder-topology.js';

// The feeder of every row:
//   H (ABC, head) - T1 (ABC) - T2 (ABC) - T3 (ABC, end of the trunk)
//                   T1 - LA1 (A) - LA2 (A)        lateral on phase A
//                   T1 - LB1 (B) - LB2 (B)        lateral on phase B
const d = (imei: string, upstream: string | null, phase: Phase, section: string | null = null): FeederDevice => ({ imei, name: `Pole ${imei}`, upstream, phase, section, health: { ok: true } });
const FEEDER: FeederDevice[] = [
  d('H', null, 'ABC', 'Substation exit'), d('T1', 'H', 'ABC', 'Trunk 1'), d('T2', 'T1', 'ABC'), d('T3', 'T2', 'ABC'),
  d('LA1', 'T1', 'A', 'Lateral A'), d('LA2', 'LA1', 'A'), d('LB1', 'T1', 'B'), d('LB2', 'LB1', 'B'),
];
const silent = (...imeis: string[]) => FEEDER.map((x) => (imeis.includes(x.imei) ? { ...x, health: { ok: false as const, reason: 'communication lost' } } : x));

interface Expected { phase: Phase; from: string; to: string[]; spans?: string[]; label: string }
// [scenario, devices, tripped, expected sections]
const rows: [string, FeederDevice[], string[], Expected[]][] = [
  ['no trip: no section', FEEDER, [], []],
  ['fault between two devices on the trunk', FEEDER, ['H', 'T1', 'T2'], [{ phase: 'ABC', from: 'T2', to: ['T3'], label: 'below Pole T2' }]],
  ['fault just below the head: everything below untripped', FEEDER, ['H'], [{ phase: 'ABC', from: 'H', to: ['T1'], label: 'Substation exit' }]],
  ['fault on the trunk between T1 and T2 (laterals untripped)', FEEDER, ['H', 'T1'], [{ phase: 'ABC', from: 'T1', to: ['LA1', 'LB1', 'T2'], label: 'Trunk 1' }]],
  ['fault on a lateral', FEEDER, ['H', 'T1', 'LA1'], [{ phase: 'A', from: 'LA1', to: ['LA2'], label: 'Lateral A' }]],
  ['fault at the end of the line', FEEDER, ['H', 'T1', 'T2', 'T3'], [{ phase: 'ABC', from: 'T3', to: [], label: 'below Pole T3' }]],
  ['fault at the end of a lateral', FEEDER, ['H', 'T1', 'LB1', 'LB2'], [{ phase: 'B', from: 'LB2', to: [], label: 'below Pole LB2' }]],
  ['silent device in between: the section spans it', silent('T2'), ['H', 'T1'], [{ phase: 'ABC', from: 'T1', to: ['LA1', 'LB1', 'T3'], spans: ['T2'], label: 'Trunk 1' }]],
  ['two silent devices in a row: spans both, to the end of the line', silent('LA1', 'LA2'), ['H', 'T1', 'LB1'], [{ phase: 'B', from: 'LB1', to: ['LB2'], label: 'below Pole LB1' }]],
  ['silent lateral below a tripped trunk: spans it to the end', silent('LA1', 'LA2'), ['H', 'T1'], [{ phase: 'ABC', from: 'T1', to: ['LB1', 'T2'], spans: ['LA1', 'LA2'], label: 'Trunk 1' }]],
  ['a tripped device below a silent one still locates the fault below it', silent('T2'), ['H', 'T1', 'T3'], [{ phase: 'ABC', from: 'T3', to: [], label: 'below Pole T3' }]],
  ['two faults at once on different laterals', FEEDER, ['H', 'T1', 'LA1', 'LA2', 'LB1'], [
    { phase: 'A', from: 'LA2', to: [], label: 'below Pole LA2' }, { phase: 'B', from: 'LB1', to: ['LB2'], label: 'below Pole LB1' }]],
  ['trips outside the topology are ignored', FEEDER, ['H', 'T1', 'T2', 'elsewhere'], [{ phase: 'ABC', from: 'T2', to: ['T3'], label: 'below Pole T2' }]],
];
for (const [name, devices, tripped, expected] of rows) {
  test(name, () => {
    const got = faultedSections(devices, new Set(tripped)).map((s) => ({
      phase: s.phase, from: s.from.imei, to: s.to.map((e) => e.imei), ...(s.spans.length ? { spans: s.spans.map((e) => e.imei) } : {}), label: s.label,
    }));
    assert.equal(got, expected);
  });
}

// Phases: single-phase indicators, one chain per phase (three heads), as on a feeder fitted with a set per pole.
const PHASED: FeederDevice[] = [
  d('A1', null, 'A'), d('A2', 'A1', 'A'), d('A3', 'A2', 'A'),
  d('B1', null, 'B'), d('B2', 'B1', 'B'), d('B3', 'B2', 'B'),
  d('C1', null, 'C'), d('C2', 'C1', 'C'), d('C3', 'C2', 'C'),
];
const phaseRows: [string, string[], [Phase, string, string[]][]][] = [
  ['single phase to ground on A: only phase A located', ['A1', 'A2'], [['A', 'A2', ['A3']]]],
  ['phase to phase B-C: both phases located at the same place', ['B1', 'B2', 'C1', 'C2'], [['B', 'B2', ['B3']], ['C', 'C2', ['C3']]]],
  ['three-phase fault at the end', ['A1', 'A2', 'A3', 'B1', 'B2', 'B3', 'C1', 'C2', 'C3'], [['A', 'A3', []], ['B', 'B3', []], ['C', 'C3', []]]],
];
for (const [name, tripped, expected] of phaseRows) {
  test(name, () => {
    assert.equal(faultedSections(PHASED, new Set(tripped)).map((s) => [s.phase, s.from.imei, s.to.map((e) => e.imei)]), expected);
  });
}

test('a widened section says why in its description', () => {
  const [s] = faultedSections(silent('T2'), new Set(['H', 'T1']));
  assert.is(describeSection(s!), 'Trunk 1 (phase ABC): below Pole T1, above Pole LA1, Pole LB1, Pole T3; widened over Pole T2 (communication lost)');
  const [end] = faultedSections(FEEDER, new Set(['H', 'T1', 'T2', 'T3']));
  assert.is(describeSection(end!), 'below Pole T3 (phase ABC): below Pole T3, to the end of the line');
});

test.run();
