// Queue messages the API suites feed after test/fixtures/messages (which cover only the north
// organisation, no DST day, no SOTF / Fault Like and no model change). Built from fixture 001 so they
// go through the same validation and stages; every one is pushed through the real pipeline.
import { fixtureText } from '../../../support/checkins.js';

interface Extra {
  imei: string;
  date: string;
  ongoingFault: number;
  faultType?: number;
  model?: string;
  events?: { EventID: number; EventTimestamp: string; EventType: string; PrefaultCurrent: number; FaultCurrent: number; RecoverCurrent: number }[];
}

function message({ imei, date, ongoingFault, faultType, model, events = [] }: Extra): string {
  const base = JSON.parse(fixtureText('001-plain-checkin.json')) as { device_data: Record<string, unknown>; events: unknown[] };
  base.device_data = { ...base.device_data, IMEINumber: imei, date, Ongoing_fault: ongoingFault, ...(faultType === undefined ? {} : { FaultType: faultType }), ...(model ? { model } : {}) };
  base.events = events;
  return JSON.stringify(base);
}

const ev = (EventID: number, EventTimestamp: string, EventType: string, PrefaultCurrent: number, FaultCurrent: number, RecoverCurrent: number) =>
  ({ EventID, EventTimestamp, EventType, PrefaultCurrent, FaultCurrent, RecoverCurrent });

/** Named expectations the suites check against (the API's view of these messages). */
export const EXTRA = {
  // America/Chicago springs forward on 2026-03-08 at 02:00 CST: 07:30Z is 01:30 AM CST, 08:30Z is 03:30 AM CDT.
  // (Past days: the validate stage refuses timestamps more than a day ahead of the receive time.)
  chicagoDst: { imei: '861000000000300', day: '20260308', before: '2026-03-08T07:30:00Z', after: '2026-03-08T08:30:00Z', beforeText: '2026-Mar-08 01:30 AM', afterText: '2026-Mar-08 03:30 AM' },
  // Australia/Sydney springs forward on 2026-10-04 at 02:00 AEST: 15:30Z is 01:30 AM AEST, 16:30Z is 03:30 AM AEDT.
  sydneyDst: { imei: '861100000000100', day: '20261004', before: '2026-10-03T15:30:00Z', after: '2026-10-03T16:30:00Z', beforeText: '2026-Oct-04 01:30 AM', afterText: '2026-Oct-04 03:30 AM' },
  southFault: { imei: '861100000000000', pfaultPrefault: 30, threshold: 15 },
  southOtherGroup: '861100000000400',
  deleted: '861000000000700',
  modelChange: { imei: '861000000000600', oldModel: 'FCI-2000', newModel: 'FCI-3000' },
} as const;

export function extraMessages(): { name: string; body: string }[] {
  const list: Extra[] = [
    // SOTF and Fault Like (spec 3.4 rows the fixtures lack), on the Chicago DST day
    { imei: EXTRA.chicagoDst.imei, date: EXTRA.chicagoDst.before, ongoingFault: 0, events: [ev(900, '2026-03-08T07:29:00Z', 'Fault Like', 80, 300, 70)] },
    { imei: EXTRA.chicagoDst.imei, date: EXTRA.chicagoDst.after, ongoingFault: 0, events: [ev(901, '2026-03-08T08:29:00Z', 'SOTF', 75, 640, 44)] },
    // south: masked organisation (spec 3.5); FaultType 2 (Permanent) and an SOTF, so every masked field has a value to hide
    { imei: EXTRA.southFault.imei, date: '2026-11-20T14:00:00Z', ongoingFault: 4, faultType: 2, events: [ev(5, '2026-11-20T13:59:00Z', 'PFault', EXTRA.southFault.pfaultPrefault, 700, 0)] },
    { imei: EXTRA.sydneyDst.imei, date: EXTRA.sydneyDst.before, ongoingFault: 0, events: [ev(7, '2026-10-03T15:29:00Z', 'Current Reset', 0, 50, 0)] },
    { imei: EXTRA.sydneyDst.imei, date: EXTRA.sydneyDst.after, ongoingFault: 0 },
    { imei: EXTRA.southOtherGroup, date: '2026-11-20T14:00:00Z', ongoingFault: 2, events: [ev(3, '2026-11-20T13:58:00Z', 'TFault', 20, 300, 10), ev(4, '2026-11-20T13:58:30Z', 'SOTF', 20, 310, 12)] },
    // a soft-deleted device still reporting: stored, but invisible to every reader
    { imei: EXTRA.deleted, date: '2026-11-20T16:00:00Z', ongoingFault: 4, events: [ev(40, '2026-11-20T15:59:00Z', 'PFault', 100, 900, 0)] },
    // the model changes from FCI-2000 (fixture 008) to FCI-3000: a model-change alert
    { imei: EXTRA.modelChange.imei, date: '2026-11-20T16:05:00Z', ongoingFault: 0, model: 'LM-3-R2' },
  ];
  return list.map((m, i) => ({ name: `api-extra-${String(i).padStart(2, '0')}.json`, body: message(m) }));
}
