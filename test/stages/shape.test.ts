// The pipeline's shape: where PIPELINE_SPLIT cuts the chain, and which segments `start --only` runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CHAIN, parseSplit } from '../../config/pipeline-split.js';
import { segmentLabel, segmentsFor, segmentsOf, stagesOfLabel } from '../../stages/shape.js';

const labels = (cuts: Parameters<typeof segmentsOf>[0]) => segmentsOf(cuts).map(segmentLabel);

test('unset is the chained default: one segment of all five stages', () => {
  assert.equal(parseSplit(undefined), []);
  assert.equal(parseSplit(' '), []);
  assert.equal(labels([]), ['enrich..notify']);
});

test('a cut starts a segment at each named stage, in chain order whatever the order given', () => {
  assert.equal(labels(parseSplit('persist')), ['enrich..fault-compute', 'persist..notify']);
  assert.equal(labels(parseSplit('notify, dedup')), ['enrich', 'dedup..persist', 'notify']);
  assert.equal(labels(parseSplit('every')), [...CHAIN]);
});

test('a value that is not a cut is refused with the allowed values', () => {
  assert.throws(() => parseSplit('persits'), /PIPELINE_SPLIT: "persits" is not a stage; give every, or the stages that start a segment, from dedup, fault-compute, persist, notify/);
  assert.throws(() => parseSplit('enrich'), /always starts at enrich/);
  assert.throws(() => parseSplit('rejected'), /"rejected" is not a stage/);
});

test('labels name one stage or a run of the chain', () => {
  assert.equal(stagesOfLabel('persist'), ['persist']);
  assert.equal(stagesOfLabel('dedup..persist'), ['dedup', 'fault-compute', 'persist']);
  assert.is(stagesOfLabel('persist..dedup'), null);
  assert.is(stagesOfLabel('api'), null);
  assert.is(stagesOfLabel('enrich..notify..x'), null);
});

test('start --only runs whole segments, and says which segment a partial list belongs to', () => {
  const cuts = parseSplit('persist');
  assert.equal(segmentsFor(new Set(['persist', 'notify']), cuts).map(segmentLabel), ['persist..notify']);
  assert.equal(segmentsFor(new Set(CHAIN), []).map(segmentLabel), ['enrich..notify']);
  assert.equal(segmentsFor(new Set(), []), []);
  assert.throws(() => segmentsFor(new Set(['persist']), []), /persist is part of the segment enrich..notify \(PIPELINE_SPLIT is not set, so the chain runs whole\)/);
  assert.throws(() => segmentsFor(new Set(['enrich', 'dedup']), cuts), /enrich, dedup are part of the segment enrich..fault-compute \(PIPELINE_SPLIT=persist\)/);
});

test.run();
