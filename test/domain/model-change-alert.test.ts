import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { modelChangeAlert, MODEL_CHANGE_EVENT_TYPE, type ModelChangeAlert } from '../../domain/model-change-alert.js';
import { validateModelMap, type ModelMap } from '../../domain/model-replacement.js';
import { fixtureJson } from './fixtures.js';

const IMEI = '861000000000600';
const AT = '2026-11-20T14:35:00.000Z';
const parsed = validateModelMap(fixtureJson('model-map.json'));
if (!parsed.ok) throw new Error(parsed.reason);
const MAP: ModelMap = parsed.value;
const alert = (oldModel: string, newModel: string): ModelChangeAlert => ({ IMEINumber: IMEI, oldModel, newModel, at: AT });

// docs/decisions.md#model-change-alert: [name, new (replaced) model, previous record, map, expected]
const rows: [string, string | null, { model: string | null } | null, ModelMap | undefined, ModelChangeAlert | null][] = [
  ['previous model differs -> alert', 'FCI-3000', { model: 'FCI-2000' }, undefined, alert('FCI-2000', 'FCI-3000')],
  ['same model -> none', 'FCI-3000', { model: 'FCI-3000' }, undefined, null],
  ['no previous record -> none', 'FCI-3000', null, undefined, null],
  ['previous record without model -> none', 'FCI-3000', { model: null }, undefined, null],
  ['this check-in without model -> none', null, { model: 'FCI-3000' }, undefined, null],
  ['case differs -> alert (exact comparison)', 'FCI-3000', { model: 'fci-3000' }, undefined, alert('fci-3000', 'FCI-3000')],
  ['old unreplaced spelling of the same model, with the map -> none', 'FCI-3000', { model: 'fci3k' }, MAP, null],
  ['old unreplaced spelling, without the map -> alert', 'FCI-3000', { model: 'fci3k' }, undefined, alert('fci3k', 'FCI-3000')],
  ['old spelling of another model, with the map -> alert, old as stored', 'FCI-3000', { model: 'FI2000A' }, MAP, alert('FI2000A', 'FCI-3000')],
];
for (const [name, newModel, previous, modelMap, expected] of rows) {
  test(name, () => {
    assert.equal(modelChangeAlert({ IMEINumber: IMEI, newModel, previous, at: AT, modelMap }), expected);
  });
}

test('critical-data shows it as EventType "Model Change"', () => {
  assert.is(MODEL_CHANGE_EVENT_TYPE, 'Model Change');
});

test.run();
