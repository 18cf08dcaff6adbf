import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Temporal } from 'temporal-polyfill';
import type { DeviceSnapshot } from '../../domain/checkin.js';
import type { DeviceRecord } from '../../domain/device-record.js';
import type { EventRecord } from '../../domain/event-record.js';
import type { ModelChangeAlert } from '../../domain/model-change-alert.js';
import { decideAsSpecWritten, type CheckInDecision, type DeviceHistory } from '../../domain/baseline-composition.js';
import { presentEvent } from '../../domain/event-presentation.js';
import { validateModelMap, type ModelMap } from '../../domain/model-replacement.js';
import { normaliseUtc } from '../../domain/utc-timestamp.js';
import { parseQueueMessage } from '../../domain/validate-message.js';
import { at, checkIn, event, snapshot } from './builders.js';
import { expectedRows, fixtureJson, messageBody, type ExpectedRow } from './fixtures.js';

const parsedMap = validateModelMap(fixtureJson('model-map.json'));
if (!parsedMap.ok) throw new Error(parsedMap.reason);
const MODEL_MAP: ModelMap = parsedMap.value;
const EMPTY: DeviceHistory = { record: null, standardEvents: null, dm1Events: null, shiftCandidates: [] };

/** import.json devices as the enrich stage would see them (deleted devices are not found). */
function importedDevices(): Map<string, DeviceSnapshot> {
  const doc = fixtureJson('import.json') as { devices: (Omit<DeviceSnapshot, 'DeviceID'> & { deleted: boolean })[] };
  const out = new Map<string, DeviceSnapshot>();
  doc.devices.forEach((d, i) => {
    if (!d.deleted) {
      out.set(d.IMEINumber, {
        DeviceID: i + 1, IMEINumber: d.IMEINumber, Real_Name: d.Real_Name, Lat: d.Lat, Long: d.Long,
        OrganizationID: d.OrganizationID, PowerLineID: d.PowerLineID, dnp3QueueAddress: d.dnp3QueueAddress,
      });
    }
  });
  return out;
}

/** The persist stage in miniature: what a database would hold after applying each decision. */
class Store {
  records: DeviceRecord[] = [];
  events: EventRecord[] = [];
  alerts: ModelChangeAlert[] = [];
  history = new Map<string, Omit<DeviceHistory, 'shiftCandidates'>>();

  previous(imei: string): DeviceHistory {
    const shiftCandidates = this.events
      .filter((e) => e.IMEINumber === imei && e.table === 'event_records')
      .map((e) => ({ EventID: e.EventID, EventTimestamp: e.EventTimestamp, EventType: e.EventType, shifted: e.TimestampShifted }));
    return { ...(this.history.get(imei) ?? EMPTY), shiftCandidates };
  }

  apply(d: CheckInDecision): void {
    if (!d.duplicate) this.records.push(d.record);
    this.events.push(...d.events);
    for (const s of d.storedShifts) {
      const e = this.events.find((x) => x.IMEINumber === d.IMEINumber && x.EventID === s.EventID && x.EventTimestamp === s.fromTimestamp);
      if (e) Object.assign(e, { EventTimestamp: s.toTimestamp, TimestampShifted: true });
    }
    if (d.alert) this.alerts.push(d.alert);
    this.history.set(d.IMEINumber, d.next);
  }
}

// Every fixture message in order against one store; each expected.json key is checked (an unknown key fails).
const devices = importedDevices();
const store = new Store();
const decisions = new Map<string, CheckInDecision>();
const NOW = Temporal.Instant.from('2026-11-20T16:00:00Z');

const checks: Record<string, (want: ExpectedRow, d: CheckInDecision | null, imei: string) => void> = {
  file: () => {},
  imei: (w, d) => assert.is(d?.IMEINumber, w.imei),
  rejected: () => {}, // checked before deciding
  ActualOngoingFault: (w, d) => assert.is(d?.record.ActualOngoingFault, w.ActualOngoingFault),
  model: (w, d) => assert.is(d?.record.model, w.model),
  duplicate: (w, d) => assert.is(d?.duplicate, w.duplicate),
  records: (w, _d, imei) => assert.is(store.records.filter((r) => r.IMEINumber === imei).length, w.records),
  records_stored: (w, _d, imei) => assert.is(store.records.filter((r) => r.IMEINumber === imei).length, w.records_stored),
  events: (w, _d, imei) => assert.is(store.events.filter((e) => e.IMEINumber === imei && e.table === 'event_records').length, w.events),
  dm1_events: (w, _d, imei) => assert.is(store.events.filter((e) => e.IMEINumber === imei && e.table === 'dm1_event_records').length, w.dm1_events),
  events_total_for_device: (w, _d, imei) => assert.is(store.events.filter((e) => e.IMEINumber === imei).length, w.events_total_for_device),
  shifted: (w, _d, imei) => {
    const e = store.events.find((x) => x.IMEINumber === imei && x.EventID === w.shifted?.EventID);
    assert.equal([e?.EventTimestamp, e?.TimestampShifted], [normaliseUtc(w.shifted!.EventTimestamp), true]);
  },
  PermanentFaultResetCurrentThreshold: (w, d) => assert.ok(d?.events.some((e) => presentEvent(e).PermanentFaultResetCurrentThreshold === w.PermanentFaultResetCurrentThreshold)),
  PostEventRef: (w, d) => assert.ok(d?.events.some((e) => presentEvent(e).PostEventRef === w.PostEventRef)),
  PrefaultCurrent_api: (w, d) => assert.ok(d?.events.some((e) => presentEvent(e).PrefaultCurrent === w.PrefaultCurrent_api)),
  FaultCurrent_api: (w, d) => assert.ok(d?.events.some((e) => presentEvent(e).FaultCurrent === w.FaultCurrent_api)),
  unregistered: (w, d) => {
    assert.is(d?.IMEINumber, w.unregistered);
    assert.not.ok(devices.has(w.unregistered!));
    assert.equal([d?.record.CurrentName, d?.record.CurrentLat, d?.record.CurrentLong, d?.dnp3], [null, null, null, null]);
  },
  visible_in_api: (w, d) => assert.is(devices.has(d!.IMEINumber), w.visible_in_api), // readers join device information
};

for (const want of expectedRows()) {
  test(`fixture run: ${want.file}`, () => {
    const parsed = parseQueueMessage(messageBody(want.file), { now: NOW });
    if (want.rejected) {
      assert.is(parsed.ok ? 'accepted' : parsed.code, want.rejected);
      return;
    }
    if (!parsed.ok) return assert.unreachable(parsed.reason);
    const imei = parsed.imei;
    const d = decideAsSpecWritten({ checkIn: parsed.value, device: devices.get(imei) ?? null, previous: store.previous(imei), modelMap: MODEL_MAP });
    store.apply(d);
    decisions.set(want.file, d);
    for (const key of Object.keys(want)) {
      const check = checks[key];
      if (!check) return assert.unreachable(`no check for expected.json key ${key}`);
      check(want, d, imei);
    }
  });
}

test('fixture run: duplicate 003 stores nothing and sends nothing', () => {
  const d = decisions.get('003-permanent-fault-resent.json')!;
  assert.equal([d.duplicate, d.events.length, d.currents, d.alert, d.dnp3, d.faultChanged], [true, 0, null, null, null, false]);
  assert.equal(d.droppedEvents, [{ EventID: 101, EventTimestamp: at('14:04:10'), reason: 'not-newer' }]);
});

test('fixture run: registered devices get DNP3 output and currents rows; no model-change alerts', () => {
  const d = decisions.get('002-permanent-fault.json')!;
  assert.is(d.dnp3?.address, 'dnp3.north');
  assert.is(d.dnp3?.payload.ActualOngoingFaultText, 'Permanent');
  assert.is(d.dnp3?.payload.events.length, 1);
  assert.is(d.currents?.AverageCurrentH23, 134.5);
  assert.is(d.currents?.CurrentName, 'North F7 Pole 41 Phase B');
  assert.equal(store.alerts, []);
});

test('fixture run: 006 goes to the DM1 table and state; 007 stores 201 moved, 202 not', () => {
  const dm1 = decisions.get('006-dm1-fault-initial.json')!;
  assert.equal([dm1.table, dm1.next.dm1Events, dm1.next.standardEvents], ['dm1_event_records', { lastEventId: 3, lastEventTimestamp: at('14:19:40') }, null]);
  const moved = decisions.get('007-fault-lt50-then-tfault.json')!;
  assert.equal(moved.events.map((e) => [e.EventID, e.EventTimestamp, e.OriginalEventTimestamp, e.TimestampShifted]), [
    [201, at('14:24:30'), at('14:25:00'), true],
    [202, at('14:28:00'), at('14:28:00'), false],
  ]);
  assert.equal(moved.storedShifts, [], 'a move inside the message is not an UPDATE of a stored event');
});

test('fixture run: 010 record keeps the reported value for audit', () => {
  const r = decisions.get('010-permanent-after-low-current.json')!.record;
  assert.equal([r.ReportedOngoingFault, r.Ongoing_fault, r.ActualOngoingFault], [4, 11, 11]);
});

// ---- single decisions: [name, input change, check] ----
const prevRecord = { date: at('13:00:00'), model: 'FCI-3000', AverageCurrent1m: 0.5, ActualOngoingFault: 0 };
type Case = [string, Partial<Parameters<typeof decideAsSpecWritten>[0]>, (d: CheckInDecision) => void];
const cases: Case[] = [
  ['model change -> alert at the check-in date', { checkIn: checkIn({ device: { model: 'FI-2000-A' } }), previous: { ...EMPTY, record: prevRecord } },
    (d) => assert.equal(d.alert, { IMEINumber: '861000000000000', oldModel: 'FCI-3000', newModel: 'FCI-2000', at: at('14:00:00') })],
  ['duplicate: same date as the previous record', { previous: { ...EMPTY, record: { ...prevRecord, date: at('14:00:00'), model: 'X' } } },
    (d) => assert.equal([d.duplicate, d.alert, d.currents, d.dnp3, d.next.record?.model], [true, null, null, null, 'X'])],
  ['lowCurrentA option reaches 3.2', { checkIn: checkIn({ device: { Ongoing_fault: 4 } }), previous: { ...EMPTY, record: prevRecord }, options: { lowCurrentA: 0.1 } },
    (d) => assert.is(d.record.ActualOngoingFault, 4)],
  ['default lowCurrentA 1.0', { checkIn: checkIn({ device: { Ongoing_fault: 4 } }), previous: { ...EMPTY, record: prevRecord } },
    (d) => assert.equal([d.record.ActualOngoingFault, d.ongoingFault.rule, d.faultChanged], [11, 'PREVIOUS_LOW_CURRENT', true])],
  ['no change of fault code -> faultChanged false', { previous: { ...EMPTY, record: prevRecord } }, (d) => assert.is(d.faultChanged, false)],
  ['first record with NONE -> faultChanged false', {}, (d) => assert.is(d.faultChanged, false)],
  ['stored Fault <50 moves when the TFault arrives in the next message', {
    checkIn: checkIn({ events: [event(202, '13:58:00', 'TFault')] }),
    previous: { ...EMPTY, standardEvents: { lastEventId: 201, lastEventTimestamp: at('13:55:00') }, shiftCandidates: [{ EventID: 201, EventTimestamp: at('13:55:00'), EventType: 'Fault <50', shifted: false }] },
  }, (d) => assert.equal(d.storedShifts, [{ EventID: 201, fromTimestamp: at('13:55:00'), toTimestamp: at('13:54:30'), stored: true }])],
  ['DM1 message: DM1 mark moves, standard mark untouched, no Fault <50 move', {
    checkIn: checkIn({ dm1: true, events: [event(1, '13:00:00', 'Fault <50'), event(2, '13:01:00', 'TFault')] }),
    previous: { ...EMPTY, standardEvents: { lastEventId: 50, lastEventTimestamp: at('12:00:00') } },
  }, (d) => assert.equal([d.table, d.next.standardEvents?.lastEventId, d.next.dm1Events?.lastEventId, d.events.map((e) => e.TimestampShifted)], ['dm1_event_records', 50, 2, [false, false]])],
  ['standard message filters with the standard mark only', {
    checkIn: checkIn({ events: [event(5, '13:00:00', 'TFault')] }),
    previous: { ...EMPTY, dm1Events: { lastEventId: 100, lastEventTimestamp: at('12:00:00') } },
  }, (d) => assert.equal(d.events.map((e) => e.EventID), [5])],
  ['events carry IMEINumber and PacketTimestamp', { checkIn: checkIn({ events: [event(5, '13:00:00', 'TFault')] }) },
    (d) => assert.equal([d.events[0]?.IMEINumber, d.events[0]?.PacketTimestamp, d.events[0]?.table], ['861000000000000', at('14:00:00'), 'event_records'])],
  ['no currents -> no currents row', { checkIn: checkIn({ currents: null }) }, (d) => assert.is(d.currents, null)],
  ['unregistered -> no enrichment, no DNP3, still a record', { device: null },
    (d) => assert.equal([d.record.CurrentName, d.record.CurrentLat, d.dnp3, d.duplicate], [null, null, null, false])],
  ['late check-in does not become the previous record', { previous: { ...EMPTY, record: { ...prevRecord, date: at('15:00:00') } } },
    (d) => assert.is(d.next.record?.date, at('15:00:00'))],
  ['newer check-in becomes the previous record', { previous: { ...EMPTY, record: prevRecord } },
    (d) => assert.equal(d.next.record, { date: at('14:00:00'), model: 'FCI-3000', AverageCurrent1m: 120.5, ActualOngoingFault: 0 })],
];
for (const [name, change, check] of cases) {
  test(`decideAsSpecWritten: ${name}`, () => {
    check(decideAsSpecWritten({ checkIn: checkIn(), device: snapshot(), previous: EMPTY, modelMap: MODEL_MAP, ...change }));
  });
}

test.run();
