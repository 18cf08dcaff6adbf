// An incident's sections as a caller may see them (domain/section-reach.ts): ends outside the reach lose their
// IMEI and name, a label that named the upstream indicator gives way, the import's Section stands.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FaultedSection } from '../../domain/faulted-section.js';
import { OUTSIDE_REACH_LABEL, sectionImeis, sectionInReach } from '../../domain/section-reach.js';

const test = suite('section reach');
const ours = { imei: '861000000000300', name: 'Pole 43' };
const theirs = { imei: '861000000000500', name: 'Pole 45' };
const gone = { imei: '861000000000700', name: null };
const inReach = (imei: string) => imei === ours.imei;

test('every end in reach: the section as stored', () => {
  const s: FaultedSection = { phase: 'A', from: ours, to: [theirs], spans: [{ ...gone, reason: 'offline' }], label: 'below Pole 43' };
  assert.equal(sectionInReach(s, () => true), s);
  assert.equal(sectionImeis([s]), [ours.imei, theirs.imei, gone.imei]);
});

test('ends outside the reach are not named; the stretch stays (phase, how many, why)', () => {
  const s: FaultedSection = { phase: 'A', from: ours, to: [theirs], spans: [{ ...gone, reason: 'offline' }], label: 'below Pole 43' };
  assert.equal(sectionInReach(s, inReach), {
    phase: 'A', from: ours, to: [{ imei: null, name: null }], spans: [{ imei: null, name: null, reason: 'offline' }], label: 'below Pole 43',
  });
});

test('a label naming an upstream indicator outside the reach gives way, by name or by IMEI', () => {
  for (const from of [theirs, gone]) {
    const s: FaultedSection = { phase: 'B', from, to: [], spans: [], label: `below ${from.name ?? from.imei}` };
    const shown = sectionInReach(s, inReach);
    assert.is(shown.label, OUTSIDE_REACH_LABEL);
    assert.equal(shown.from, { imei: null, name: null });
  }
});

test("the import's Section of an indicator outside the reach stands: a stretch, not a device", () => {
  const s: FaultedSection = { phase: 'C', from: theirs, to: [], spans: [], label: 'Lateral 7 east' };
  assert.is(sectionInReach(s, inReach).label, 'Lateral 7 east');
});

test.run();
