// Check-ins for the silent-device triage suites (pipeline and portal): the shipped fixture's shape with a chosen
// device, time, power source and fault events, and a device's check-ins every 15 minutes over a span.
import { fixtureText } from '../../../support/checkins.js';

export const MIN = 60_000, HOUR = 60 * MIN;
let seq = 0;

/** One check-in of `imei` at `at` (ms), line-powered unless `over` says otherwise; fault code 4 when it carries events. */
export function checkIn(imei: string, at: number, over: Record<string, unknown> = {}, events: { type: string; at: number }[] = []): { name: string; body: string } {
  const m = JSON.parse(fixtureText('002-permanent-fault.json')) as { device_data: Record<string, unknown>; events: Record<string, unknown>[] };
  Object.assign(m.device_data, { IMEINumber: imei, date: new Date(at).toISOString(), Ongoing_fault: events.length ? 4 : 0, BatteryOrLine: 0, ...over });
  m.events = events.map((e) => ({ EventID: 5000 + seq++, EventTimestamp: new Date(e.at).toISOString(), EventType: e.type, PrefaultCurrent: 140, FaultCurrent: 812, RecoverCurrent: 0 }));
  return { name: `triage-${seq++}.json`, body: JSON.stringify(m) };
}

/** Check-ins of `imeis` every 15 minutes from `from` to `to` (inclusive). */
export const every15 = (imeis: readonly string[], from: number, to: number) =>
  imeis.flatMap((imei) => Array.from({ length: Math.floor((to - from) / (15 * MIN)) + 1 }, (_, i) => checkIn(imei, from + i * 15 * MIN)));
