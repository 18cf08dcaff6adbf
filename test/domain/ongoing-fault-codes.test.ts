import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  batteryOrLineText, ONGOING_FAULT, ongoingFaultName, ongoingFaultText,
} from '../../domain/ongoing-fault-codes.js';

// spec 3.1 (name, code) and docs/decisions.md#codes-to-strings (text)
const rows: [string, number, string][] = [
  ['NONE', 0, 'None'],
  ['DECISION', 1, 'Decision'],
  ['TEMPORARY', 2, 'Temporary'],
  ['OVER_CURRENT_NO_LOCAL_FAULT', 3, 'Over Current No Local Fault'],
  ['PERMANENT', 4, 'Permanent'],
  ['PERMANENT_ALT', 5, 'Permanent'],
  ['OVER_CURRENT', 6, 'Over Current'],
  ['CURRENT_RESET', 10, 'Current Reset'],
  ['PROBABLE_TEMP_FAULT', 11, 'Probable Temp Fault'],
  ['DM1_PORT_1_FAULT', 21, 'DM1 Port 1 Fault'],
  ['DM1_PORT_2_FAULT', 22, 'DM1 Port 2 Fault'],
  ['DM1_PORT_3_FAULT', 23, 'DM1 Port 3 Fault'],
  ['DISCONNECTED', 400, 'Disconnected'],
  ['NO_DATA', 401, 'No Data'],
  ['LOW_BATTERY', 402, 'Low Battery'],
];
for (const [name, code, text] of rows) {
  test(`${name} = ${code} = "${text}"`, () => {
    assert.is(ONGOING_FAULT[name as keyof typeof ONGOING_FAULT], code);
    assert.is(ongoingFaultText(code), text);
    assert.is(ongoingFaultName(code), name);
  });
}

test('the table has exactly the 15 codes of spec 3.1', () => {
  assert.is(Object.keys(ONGOING_FAULT).length, rows.length);
});

test('unknown codes', () => {
  assert.equal([ongoingFaultText(7), ongoingFaultText(-1), ongoingFaultName(7)], ['Unknown (7)', 'Unknown (-1)', null]);
});

// spec 2.2 BatteryOrLine
for (const [code, text] of [[0, 'Line'], [1, 'Battery'], [2, 'Unknown (2)'], [-1, 'Unknown (-1)']] as const) {
  test(`BatteryOrLine ${code} -> ${text}`, () => {
    assert.is(batteryOrLineText(code), text);
  });
}

test.run();
