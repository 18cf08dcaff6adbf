// A silent device's triage as a caller may see it (api/fleet/silence-shown.ts): indicators outside reach unnamed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silenceAsShown, silenceImeis } from '../../api/fleet/silence-shown.js';
import { OUTSIDE_REACH_LABEL } from '../../domain/section-reach.js';

const OUT = '861000000000500';
const IN = '861000000000300';
const section = {
  evidence: { powerLineId: 'north-F7', point: { imei: OUT, name: 'Pole 45' }, upstream: { imei: IN, name: 'Pole 43' }, section: 'below Pole 45', devices: 2 },
  groupKey: `deenergised:north-F7:${OUT}`,
};

test('the indicators the evidence names, once each', () => {
  assert.equal(silenceImeis(section).sort(), [IN, OUT].sort());
});

test('an indicator outside reach is not named: its end, a label naming it, a key made from it', () => {
  const shown = silenceAsShown(section, (imei) => imei === IN);
  assert.equal(shown.evidence.point, { imei: null, name: null });
  assert.equal(shown.evidence.upstream, { imei: IN, name: 'Pole 43' });
  assert.is(shown.evidence.section, OUTSIDE_REACH_LABEL);
  assert.is(shown.evidence.devices, 2);
  assert.is(shown.groupKey, null);
  assert.not.ok(JSON.stringify(shown).includes(OUT) || JSON.stringify(shown).includes('Pole 45'));
});

test('everything in reach: shown as stored', () => {
  assert.is(silenceAsShown(section, () => true), section);
  const cluster = { evidence: { devices: 6, powerLines: ['K1', 'K2'] }, groupKey: `cluster:${OUT}` };
  assert.is(silenceAsShown(cluster, () => false).groupKey, null);
});

test.run();
