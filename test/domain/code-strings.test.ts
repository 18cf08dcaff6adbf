import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { codeText, parseCodeStrings } from '../../domain/code-strings.js';
import { maskFaultClass } from '../../domain/fault-masking.js';
import { ongoingFaultText } from '../../domain/ongoing-fault-codes.js';

const shipped = JSON.parse(readFileSync(new URL('../../schemas/config/code-strings.json', import.meta.url), 'utf8')) as unknown;

test('the shipped file holds the docs/decisions.md defaults', () => {
  const r = parseCodeStrings(shipped);
  assert.ok(r.ok);
  if (!r.ok) return;
  const state: [number, string][] = [[0, 'Normal'], [1, 'Fault'], [2, 'Reset'], [3, 'Test'], [7, 'Unknown (7)']];
  for (const [code, text] of state) assert.is(codeText(r.value.State, code), text);
  const faultType: [number, string][] = [[0, 'None'], [1, 'Temporary'], [2, 'Permanent'], [3, 'Over Current'], [4, 'SOTF'], [9, 'Unknown (9)']];
  for (const [code, text] of faultType) assert.is(codeText(r.value.FaultType, code), text);
  assert.is(codeText(r.value.State, null), null);
});

test('invalid files are refused with a reason', () => {
  const bad: [unknown, RegExp][] = [
    [null, /object/],
    [{ State: {}, FaultType: {} }, /version/],
    [{ version: 1, State: [], FaultType: {} }, /State/],
    [{ version: 1, State: { x: 'a' }, FaultType: {} }, /State: key "x"/],
    [{ version: 1, State: {}, FaultType: { 1: '' } }, /FaultType\.1/],
  ];
  for (const [json, reason] of bad) {
    const r = parseCodeStrings(json);
    assert.not.ok(r.ok);
    if (!r.ok) assert.match(r.reason, reason);
  }
});

// spec 3.1 strings, and spec 3.5 masking: [code, unmasked, masked]
const faults: [number, string, string][] = [
  [0, 'None', 'None'], [1, 'Decision', 'Fault'], [2, 'Temporary', 'Fault'], [4, 'Permanent', 'Fault'],
  [6, 'Over Current', 'Fault'], [10, 'Current Reset', 'Fault'], [11, 'Probable Temp Fault', 'Fault'],
  [402, 'Low Battery', 'Fault'], [77, 'Unknown (77)', 'Fault'],
];
for (const [code, plain, masked] of faults) {
  test(`ongoing fault ${code}: ${plain} / masked ${masked}`, () => {
    assert.is(ongoingFaultText(code), plain);
    assert.equal(maskFaultClass({ ActualOngoingFault: plain }, { faultTypeNone: 'None' }), { ActualOngoingFault: masked });
  });
}
test('null ongoing fault stays null', () => assert.equal(maskFaultClass({ Ongoing_fault: null }, { faultTypeNone: 'None' }), { Ongoing_fault: null }));

test.run();
