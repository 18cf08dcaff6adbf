// The mask of spec 3.5 and its principle (docs/decisions.md#masking), field by field of MASKED_FIELDS, on
// every answer shape the device-records interface has, and the queries a masked caller may not send.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAULT_EVENT_TYPES } from '../../domain/fault-events.js';
import { presentEvent } from '../../domain/event-presentation.js';
import { MASKED_FIELDS, MASKED_READER_FIELDS, TYPE_SHAPED_FIELDS, maskedParametersProblem, maskedQueryProblem, maskFaultClass, maskText } from '../../domain/fault-masking.js';
import { ALARM_KINDS, FAULT_CLASS_KINDS, RETIRED_KINDS, kindCovered, maskedRuleKinds } from '../../domain/alarm-kinds.js';
import { FAULT_CODE_CLASSES, ONGOING_FAULT_TEXT } from '../../domain/ongoing-fault-codes.js';
import { maskedAlarmPayload, messageBody, messageText } from '../../domain/alarm-message.js';
import { RESTORED_REASONS } from '../../domain/incident-rules.js';
import { ruleMatches, type AlarmRule } from '../../domain/alarm-rules.js';

const names = { faultTypeNone: 'No fault' };
const mask = (v: unknown) => maskFaultClass(v, names);

test('every fault event type reads Fault, its class-only spec 3.4 fields null, cleared values null', () => {
  for (const EventType of FAULT_EVENT_TYPES) {
    const masked = mask({ EventType, PrefaultCurrent: 140, FaultCurrent: 300, RecoverCurrent: '', PermanentFaultResetCurrentThreshold: 70, PostEventRef: 'Load 15s After Event (A)' });
    assert.equal(masked, { EventType: 'Fault', PrefaultCurrent: 140, FaultCurrent: 300, RecoverCurrent: null, PermanentFaultResetCurrentThreshold: null, PostEventRef: null }, EventType);
  }
});

test('one stored event presented (spec 3.4) as each fault event type reads the same under the mask: same values, same null fields', () => {
  const stored = { IMEINumber: '861', EventTimestamp: '2026-Nov-20 10:00 AM', PrefaultCurrent: 140, FaultCurrent: 300, RecoverCurrent: 12 };
  const masked = FAULT_EVENT_TYPES.map((EventType) => mask(presentEvent({ EventType, ...stored })));
  for (const [i, EventType] of FAULT_EVENT_TYPES.entries()) {
    assert.equal(masked[i], masked[0], `${EventType} reads like ${FAULT_EVENT_TYPES[0]}`);
  }
  // SOTF is the type spec 3.4 clears RecoverCurrent for: every fault event carries it null, none keeps its number.
  assert.equal(masked[0], { IMEINumber: '861', EventTimestamp: '2026-Nov-20 10:00 AM', EventType: 'Fault', PrefaultCurrent: 140, FaultCurrent: 300, RecoverCurrent: null, PermanentFaultResetCurrentThreshold: null, PostEventRef: null });
  assert.equal([...TYPE_SHAPED_FIELDS].sort(), ['PermanentFaultResetCurrentThreshold', 'PostEventRef', 'RecoverCurrent']);
});

test('a type that names no fault keeps its name; the class-only fields are still null', () => {
  assert.equal(mask({ EventType: 'Current Reset', PrefaultCurrent: 96, FaultCurrent: '', PermanentFaultResetCurrentThreshold: 48, PostEventRef: 'Reset Current (A)' }),
    { EventType: 'Current Reset', PrefaultCurrent: 96, FaultCurrent: '', PermanentFaultResetCurrentThreshold: null, PostEventRef: null });
  assert.equal(mask({ EventType: 'Model Change', oldModel: 'A', newModel: 'B' }), { EventType: 'Model Change', oldModel: 'A', newModel: 'B' });
});

test('Ongoing_fault, ActualOngoingFault, FaultType: None for code 0 (FaultType by its configured name), else Fault', () => {
  assert.equal(mask({ Ongoing_fault: 'Permanent', ActualOngoingFault: 'None', FaultType: 'Permanent', State: 'Normal' }),
    { Ongoing_fault: 'Fault', ActualOngoingFault: 'None', FaultType: 'Fault', State: 'Normal' });
  assert.equal(mask({ FaultType: 'No fault' }), { FaultType: 'None' });
  assert.equal(mask({ FaultType: 'Unknown (9)' }), { FaultType: 'Fault' });
  assert.equal(mask({ FaultType: null }), { FaultType: null });
});

test('every answer shape: pages, lists, nested latestRecord, and count buckets merged', () => {
  const page = { data: [{ FaultType: 'SOTF', EventType: 'PFault' }], page: 0, limit: 50, total: 1 };
  assert.equal(mask(page), { data: [{ FaultType: 'Fault', EventType: 'Fault' }], page: 0, limit: 50, total: 1 });
  assert.equal(mask({ IMEINumber: '1', groups: ['a'], latestRecord: { Ongoing_fault: 'Temporary', FaultType: 'Temporary' } }),
    { IMEINumber: '1', groups: ['a'], latestRecord: { Ongoing_fault: 'Fault', FaultType: 'Fault' } });
  assert.equal(mask({ byActualOngoingFault: [{ ActualOngoingFault: 'None', count: 1 }, { ActualOngoingFault: 'Permanent', count: 2 }, { ActualOngoingFault: 'Temporary', count: 3 }] }),
    { byActualOngoingFault: [{ ActualOngoingFault: 'None', count: 1 }, { ActualOngoingFault: 'Fault', count: 5 }] });
});

test('MASKED_FIELDS lists every field the mask changes', () => {
  const before = { Ongoing_fault: 'Temporary', ActualOngoingFault: 'Permanent', FaultType: 'SOTF', EventType: 'SOTF', PermanentFaultResetCurrentThreshold: 9, PostEventRef: 'x', FaultCurrent: '', RecoverCurrent: '', State: 'Fault', PrefaultCurrent: 3 };
  const after = mask(before) as Record<string, unknown>;
  const changed = Object.keys(before).filter((k) => after[k] !== before[k as keyof typeof before]);
  assert.equal(changed.sort(), Object.keys(MASKED_FIELDS).sort());
});

test('queries: sort keys and filters that would reveal the class are refused, None / Fault pass', () => {
  const q = (sort: string[], filters: [string, string, (string | number)[]][]) => ({ sort: sort.map((field) => ({ field })), filters: filters.map(([field, op, values]) => ({ field, op, values })) });
  for (const field of ['EventType', 'FaultType', 'ActualOngoingFault', 'Ongoing_fault']) assert.is(maskedQueryProblem(q([field], []))?.parameter, 'sortBy', field);
  assert.is(maskedQueryProblem(q(['date'], [])), null);
  for (const bad of [['ActualOngoingFault', 'eq', [4]], ['FaultType', 'eq', ['Permanent']], ['Ongoing_fault', 'in', ['Fault', 'Temporary']], ['EventType', 'eq', ['pfault']], ['EventType', 'contains', ['F']], ['EventType', 'in', ['Fault', 'SOTF']]] as const) {
    const p = maskedQueryProblem(q([], [[bad[0], bad[1], [...bad[2]]]]));
    assert.is(p?.parameter, `filterBy[${bad[0]}]`, JSON.stringify(bad));
    assert.match(p!.message, 'masks fault details');
  }
  for (const good of [['ActualOngoingFault', 'eq', ['Fault']], ['FaultType', 'ne', ['none']], ['EventType', 'eq', ['Fault']], ['EventType', 'in', ['Fault', 'Model Change']], ['IMEINumber', 'contains', ['86']]] as const) {
    assert.is(maskedQueryProblem(q([], [[good[0], good[1], [...good[2]]]])), null, JSON.stringify(good));
  }
});

test('alarms: a class kind reads fault, its label Fault, its code text None / Fault; other kinds keep their names', () => {
  assert.equal(mask({ id: 7, kind: 'permanent', label: 'Permanent fault', codeText: 'Permanent', class: 'operations', Real_Name: 'Pole 4' }),
    { id: 7, kind: 'fault', label: 'Fault', codeText: 'Fault', class: 'operations', Real_Name: 'Pole 4' });
  assert.equal(mask({ kind: 'low-battery', label: 'Low battery', codeText: 'None' }), { kind: 'low-battery', label: 'Low battery', codeText: 'None' });
  for (const k of ALARM_KINDS) {
    const masked = mask({ kind: k.id, label: k.label }) as { kind: string; label: string };
    if (FAULT_CLASS_KINDS.includes(k.id)) assert.equal(masked, { kind: 'fault', label: 'Fault' }, k.id);
    else assert.equal(masked, { kind: k.id, label: k.label }, k.id);
  }
});

test('alarm kinds and rules: the class kinds collapse into one fault entry', () => {
  const kinds = { data: ALARM_KINDS.map((k) => ({ id: k.id, label: k.label, source: k.source })) };
  const masked = (mask(kinds) as { data: { id: string; label: string }[] }).data;
  assert.equal(masked.filter((k) => k.id === 'fault'), [{ id: 'fault', label: 'Fault', source: 'fault-code' }]);
  assert.is(masked.length, ALARM_KINDS.length - FAULT_CLASS_KINDS.length + 1);
  assert.equal(mask({ what: ['permanent', 'temporary', 'low-battery'] }), { what: ['fault', 'low-battery'] });
  assert.equal(maskedRuleKinds(['over-current', 'model-change', 'dm1-port-fault']), ['fault', 'model-change']);
});

test('rules naming fault cover every class kind and nothing else', () => {
  for (const k of FAULT_CLASS_KINDS) assert.ok(kindCovered(['fault'], k), k);
  for (const k of ['low-battery', 'communication-lost', 'model-change', 'incident-opened']) assert.not.ok(kindCovered(['fault'], k), k);
  assert.ok(kindCovered(['permanent'], 'permanent'));
  const rule: AlarmRule = { id: 'r', OrganizationID: 'o', name: null, class: 'operations', kinds: ['fault'], powerLines: [], groups: [], devices: [], recipients: [], hours: null, escalation: null, enabled: true };
  assert.ok(ruleMatches(rule, { kind: 'temporary', IMEINumber: '1', PowerLineID: null, groups: [] }));
  assert.not.ok(ruleMatches(rule, { kind: 'low-battery', IMEINumber: '1', PowerLineID: null, groups: [] }));
});

test('incidents: kind, each tripped device\'s eventType, timeline trips and the restoring reason name no class', () => {
  const incident = {
    id: 3, kind: 'momentary', status: 'restored',
    devices: [{ IMEINumber: '1', name: 'Pole', eventType: 'TFault' }, { IMEINumber: '2', eventType: 'Fault Like' }],
    timeline: [{ what: 'opened', detail: { trips: [{ imei: '1', eventType: 'TFault', at: 'x' }] } }, { what: 'restored', detail: { reason: RESTORED_REASONS.momentary } }],
  };
  assert.equal(mask(incident), {
    id: 3, kind: 'fault', status: 'restored',
    devices: [{ IMEINumber: '1', name: 'Pole', eventType: 'Fault' }, { IMEINumber: '2', eventType: 'Fault' }],
    timeline: [{ what: 'opened', detail: { trips: [{ imei: '1', eventType: 'Fault', at: 'x' }] } }, { what: 'restored', detail: { reason: 'restored' } }],
  });
  assert.equal(mask({ kind: 'permanent' }), { kind: 'fault' });
  assert.equal(mask({ kind: 'unknown' }), { kind: 'fault' });
  assert.equal(mask({ reason: RESTORED_REASONS.currentBack }), { reason: 'restored' });
  assert.equal(Object.keys(MASKED_READER_FIELDS).sort(), ['codeText', 'eventType', 'id', 'incidentKind', 'kind', 'label', 'reason']);
});

test('the words of the text mask come from the fault tables: every code string, kind and event type that names a class', () => {
  // Read from the owners (domain/ongoing-fault-codes.ts, alarm-kinds.ts, fault-events.ts), so a new row there is covered here too.
  const currentReset = new Set<number>(FAULT_CODE_CLASSES.currentReset);
  const codeTexts = ALARM_KINDS.filter((k) => k.namesClass).flatMap((k) => k.codes).filter((c) => !currentReset.has(c)).map((c) => ONGOING_FAULT_TEXT.get(c)!);
  const classWords = [...codeTexts, ...FAULT_EVENT_TYPES, ...FAULT_CLASS_KINDS, ...Object.keys(RETIRED_KINDS), 'Momentary', 'Momentary fault', 'Probable temporary fault'];
  for (const w of classWords) assert.is(maskText(`at pole 7: ${w}.`), 'at pole 7: Fault.', w);
  // The labels of class kinds, bar Current reset (the event type that names no fault shares its words).
  for (const k of ALARM_KINDS.filter((x) => x.namesClass && x.id !== 'current-reset')) assert.is(maskText(k.label), 'Fault', k.label);
  for (const w of [...[...currentReset].map((c) => ONGOING_FAULT_TEXT.get(c)!), 'Low Battery', 'Disconnected', 'unknown', 'None']) assert.is(maskText(w), w, w);
});

test('any other text: words that name a class read Fault; field-name-like words and Current Reset stay', () => {
  assert.is(maskText('Incident 4 (permanent, located): PFault at pole 7; SOTF, Fault <50, over-current'), 'Incident 4 (Fault, located): Fault at pole 7; Fault, Fault, Fault');
  assert.is(maskText('PermanentFaultResetCurrentThreshold,Current Reset'), 'PermanentFaultResetCurrentThreshold,Current Reset');
  assert.equal(mask({ comment: 'Temporary fault cleared', n: 4, list: ['TFault'] }), { comment: 'Fault cleared', n: 4, list: ['Fault'] });
  assert.equal(mask({ Ongoing_fault: ['Permanent', 'None'] }), { Ongoing_fault: ['Fault', 'None'] });
});

test('parameters of any route: sort keys, filters (JSON or bracketed) and any value naming a class are refused', () => {
  const p = (raw: Record<string, string[]>) => maskedParametersProblem(raw)?.parameter ?? null;
  assert.is(p({ sortBy: ['{"field":"FaultType","order":"asc"}'] }), 'sortBy');
  assert.is(p({ sortBy: ['[{"field":"date"},{"field":"EventType"}]'] }), 'sortBy');
  assert.is(p({ filterBy: ['{"ActualOngoingFault":{"in":["Fault","Permanent"]}}'] }), 'filterBy[ActualOngoingFault]');
  assert.is(p({ 'filterBy[EventType][in]': ['Fault,SOTF'] }), 'filterBy[EventType]');
  assert.is(p({ state: ['permanent'] }), 'state');
  assert.is(p({ kind: ['over-current'] }), 'kind');
  assert.is(p({ status: ['Momentary'] }), 'status');
  assert.is(p({ sortBy: ['not json'] }), null, 'left to the endpoint');
  assert.is(p({ 'filterBy[ActualOngoingFault]': ['Fault'], 'filterBy[Real_Name][contains]': ['Permanent'], state: ['active'], sortBy: ['{"field":"date"}'] }), null);
});

test('alarm messages to a masked organisation: subject, text, body and webhook payload name no class', () => {
  const raised = maskedAlarmPayload({ type: 'raised', alarmId: 9, OrganizationID: 'o', kind: 'temporary', label: 'Temporary fault', class: 'operations', IMEINumber: '86', deviceName: 'Pole 9', PowerLineID: 'F1', raisedAt: '2026-01-01T00:00:00Z' });
  assert.equal([raised.kind, raised.label], ['fault', 'Fault']);
  for (const text of [messageText(raised), messageBody(raised), JSON.stringify(raised)]) assert.not.match(text, /temporary/i);
  assert.match(messageBody(raised), 'Kind: Fault');
  const battery = maskedAlarmPayload({ type: 'raised', alarmId: 10, OrganizationID: 'o', kind: 'low-battery', label: 'Low battery' });
  assert.equal([battery.kind, battery.label], ['low-battery', 'Low battery']);
});

test.run();
