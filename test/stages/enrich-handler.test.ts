// The enrich handler production runs (spec 6.1 steps 1-3): one row per rule it applies.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { enrichMessage } from '../../stages/enrich/handler.js';
import { snapshot } from '../domain/builders.js';
import { MODEL_MAP, RECEIVED_AT, raw } from './handler-messages.js';

const rows: [string, Parameters<typeof raw>[0], boolean, (out: ReturnType<typeof enrichMessage>) => void][] = [
  ['6.1 step 1: a valid message passes with its check-in', {}, true, (out) => {
    assert.ok(out.ok);
    if (out.ok) assert.is(out.value.checkIn.device_data.IMEINumber, '861000000000000');
  }],
  ['6.1 step 1: malformed JSON is a dead letter MALFORMED, body kept unchanged', { body: '{"device_data": ' }, true, (out) => {
    assert.not.ok(out.ok);
    if (!out.ok) assert.equal([out.deadLetter.code, out.deadLetter.stage, out.deadLetter.body], ['MALFORMED', 'enrich', '{"device_data": ']);
  }],
  ['6.1 step 1: a missing field is a dead letter INVALID naming it', { device: { IMEINumber: undefined } }, true, (out) => {
    assert.not.ok(out.ok);
    if (!out.ok) { assert.is(out.deadLetter.code, 'INVALID'); assert.match(out.deadLetter.reason, 'IMEINumber'); }
  }],
  ['6.1 step 1: a date over 24 h after the reception time is refused (judged against receivedAt, so replays agree)', { device: { date: new Date(RECEIVED_AT + 25 * 3_600_000).toISOString() } }, true, (out) => {
    assert.not.ok(out.ok);
  }],
  ['3.3: a legacy model string is replaced; the reported one is kept for audit', { device: { model: 'FI-2000-A' } }, true, (out) => {
    assert.ok(out.ok);
    if (out.ok) assert.equal([out.value.checkIn.device_data.model, out.value.reportedModel], ['FCI-2000', 'FI-2000-A']);
  }],
  ['3.3: a model not in the map is kept as reported', { device: { model: 'FCI-3000' } }, true, (out) => {
    assert.ok(out.ok);
    if (out.ok) assert.is(out.value.checkIn.device_data.model, 'FCI-3000');
  }],
  ['6.1 step 3: a registered device gets its snapshot and the CurrentName/Lat/Long copies', {}, true, (out) => {
    assert.ok(out.ok);
    if (out.ok) assert.equal([out.value.device?.DeviceID, out.value.CurrentName, out.value.CurrentLat, out.value.CurrentLong], [1, snapshot().Real_Name, 41.8, -87.7]);
  }],
  ['6.1 step 3: an unregistered IMEI is kept (stored, invisible) with no snapshot and null copies', {}, false, (out) => {
    assert.ok(out.ok);
    if (out.ok) assert.equal([out.value.device, out.value.CurrentName, out.value.CurrentLat], [null, null, null]);
  }],
];

for (const [name, change, registered, check] of rows) {
  test(name, () => check(enrichMessage(raw(change), registered ? snapshot() : null, { modelMap: MODEL_MAP }, RECEIVED_AT)));
}

test.run();
