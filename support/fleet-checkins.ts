// Queue messages for the fleet health rollup's tests and runs (test/integration/fleet/): a fleet of devices, each
// checking in at its own interval over the days before `endMs`, with the fields the rollup folds varying as a
// real fleet's do (whole and fractional RSSI, fields left out, firmware and reset settings changed mid-day, the
// temperature swinging), a share of check-ins resent under another message id, and some arriving late (after
// a later one of the same device). Deterministic for the same arguments.
import { seededRandom } from '../simulator/seeded-random.js';

export interface FleetCheckInsOptions {
  devices: number;
  /** Distinct check-ins (resent copies come on top). */
  checkIns: number;
  /** The last check-in is before this instant (the queue refuses dates more than a day ahead). */
  endMs: number;
  seed?: number;
  /** IMEI prefix (7 digits), so two runs in one database keep apart; the devices are support/device-data.ts registerDevices' IMEIs. */
  prefix?: string;
}

export interface FleetMessage { name: string; body: string }

interface Arrival extends FleetMessage { atMs: number }

/** Device i checks in every INTERVALS_S[i % 4] seconds. */
export const INTERVALS_S = [300, 900, 1800, 3600] as const;
export const FLEET_PREFIX = '3574400';

/** The IMEI of device `i` (from 0): 15 digits, as registerDevices (support/device-data.ts) numbers device i + 1. */
export const fleetImei = (prefix: string, i: number) => `${prefix}${String(i + 1).padStart(8, '0')}`;

/**
 * Messages in arrival order: the whole fleet interleaved by time, as the queue sees it; a late one arrives with
 * its device's next check-in, a resent copy right after its original.
 */
export function fleetCheckIns({ devices, checkIns, endMs, seed = 44, prefix = FLEET_PREFIX }: FleetCheckInsOptions): { messages: FleetMessage[]; resent: number } {
  const random = seededRandom(seed);
  const messages: Arrival[] = [];
  let resent = 0;
  const perDevice = Math.ceil(checkIns / devices);
  for (let i = 0; i < devices && messages.length - resent < checkIns; i++) {
    const imei = fleetImei(prefix, i);
    const intervalS = INTERVALS_S[i % INTERVALS_S.length]!;
    const n = Math.min(perDevice, checkIns - (messages.length - resent));
    // Device i's n check-ins end before endMs; the millisecond part keeps dates distinct and unround.
    const startMs = endMs - (n + 1) * intervalS * 1000 - (i % 1000);
    let version = random.pick(['4.2.1', '4.3.0']);
    let reset = random.pick(['2', '4']);
    const held: Arrival[] = [];
    for (let k = 0; k < n; k++) {
      if (random.chance(0.002)) version = version === '4.2.1' ? '4.3.0' : '4.2.1';
      if (random.chance(0.002)) reset = reset === '2' ? '4' : '2';
      const dateMs = startMs + k * intervalS * 1000 + random.int(0, 999);
      const missing = (p: number) => random.chance(p);
      const device_data = {
        IMEINumber: imei, model: 'FCI-3000', date: new Date(dateMs).toISOString(), Ongoing_fault: 0,
        version: missing(0.02) ? null : version,
        rssi: missing(0.05) ? null : random.chance(0.1) ? random.int(-110, -50) + 0.5 : random.int(-110, -50),
        BatteryMCU: missing(0.05) ? null : random.real(3.0, 3.7, 3),
        BatteryLED: missing(0.05) ? null : random.real(3.0, 3.65, 3),
        BatteryOrLine: random.chance(0.3) ? 1 : 0,
        ConnectTime: missing(0.05) ? null : random.chance(0.5) ? random.int(3, 60) : random.real(3, 60, 2),
        Temperature: missing(0.05) ? null : random.real(-25, 45, 1),
        Tempfault_Reset_Hours: reset, Permfault_Reset_Hours: random.chance(0.01) ? 12 : 8,
        Current_Reset: missing(0.01) ? null : 'Auto', Block_Reset: 0, current_status: 1, AverageCurrent1m: 120,
      };
      const message = { name: `fleet-${imei}-${k}`, body: JSON.stringify({ device_data }), atMs: dateMs };
      // About 1 in 100 arrives late: after the device's next check-in.
      if (random.chance(0.01)) { held.push(message); continue; }
      messages.push(message);
      messages.push(...held.splice(0).map((h) => ({ ...h, atMs: dateMs })));
      // About 1 in 50 is resent by the socket server under another message id: stored once.
      if (random.chance(0.02)) { messages.push({ ...message, name: `${message.name}-again` }); resent++; }
    }
    messages.push(...held);
  }
  // A stable sort keeps each device's order (late ones after the check-in they follow, copies after originals).
  return { messages: messages.sort((a, b) => a.atMs - b.atMs).map(({ name, body }) => ({ name, body })), resent };
}
