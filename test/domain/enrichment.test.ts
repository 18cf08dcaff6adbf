import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { enrich } from '../../domain/enrichment.js';
import { snapshot } from './builders.js';

// spec 6.1 step 3, 2.2: [name, device snapshot, expected enrichment]
const rows: [string, Parameters<typeof enrich>[0], ReturnType<typeof enrich>][] = [
  ['registered device: name and location copied', snapshot(), { CurrentName: 'North F12 Pole 40 Phase A', CurrentLat: 41.8, CurrentLong: -87.7 }],
  ['registered device without location', snapshot({ Lat: null, Long: null }), { CurrentName: 'North F12 Pole 40 Phase A', CurrentLat: null, CurrentLong: null }],
  ['registered device without name', snapshot({ Real_Name: null }), { CurrentName: null, CurrentLat: 41.8, CurrentLong: -87.7 }],
  ['zero coordinates are values, not missing', snapshot({ Lat: 0, Long: 0 }), { CurrentName: 'North F12 Pole 40 Phase A', CurrentLat: 0, CurrentLong: 0 }],
  ['unregistered device: all null (docs/decisions.md#unknown-device)', null, { CurrentName: null, CurrentLat: null, CurrentLong: null }],
];
for (const [name, device, expected] of rows) {
  test(name, () => {
    assert.equal(enrich(device), expected);
  });
}

test('the copy does not follow later renames (spec 2.2)', () => {
  const device = snapshot();
  const copy = enrich(device);
  device.Real_Name = 'Renamed';
  assert.is(copy.CurrentName, 'North F12 Pole 40 Phase A');
});

test.run();
