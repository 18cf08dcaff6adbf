// An integration of kind iec104 (docs/decisions.md#iec-104-outstation): the settings every master integration
// shares (integrations/master-settings.ts: certificate, TLS minimum, port, analog only), the common address of
// bank 0, the APCI parameters (standard defaults unless configured) and the redundancy group.
import { matchMaster } from '../integrations/master-certificate.js';
import { masterSettingsFromRow, settingsOf, type IntegrationRow, type MasterSettings } from '../integrations/master-settings.js';
import { MAX_COMMON_ADDRESS } from './data/point-map.js';
import { DEFAULT_TIMERS, type StationTimers } from './station/station.js';

export interface Iec104Integration extends MasterSettings {
  /** Common address of bank 0; bank b answers at commonAddress + b. */
  commonAddress: number;
  timers: StationTimers;
}

export const matchIec104Integration = matchMaster<Iec104Integration>;

/** The values an integration may set for k, w (frames) and t0..t3 (seconds); outside them the default stands. */
export const APCI_RANGES = { k: [1, 32767], w: [1, 32767], t0: [1, 255], t1: [1, 255], t2: [1, 255], t3: [1, 255] } as const satisfies Record<string, readonly [number, number]>;

const int = (v: unknown, min: number, max: number, dflt: number): number => (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : dflt);

/** Validates an `integrations` row of kind iec104 (settings jsonb is `unknown` until here). */
export function iec104IntegrationFromRow(row: IntegrationRow): Iec104Integration | undefined {
  // TLS 1.2 by default: lib60870-based masters commonly offer no more (docs/decisions.md#iec-104-outstation).
  const shared = masterSettingsFromRow(row, 'TLSv1.2');
  if (!shared) return undefined;
  const s = settingsOf(row);
  const sec = (key: 't0' | 't1' | 't2' | 't3', dfltMs: number) => int(s[key], ...APCI_RANGES[key], dfltMs / 1000) * 1000;
  return {
    ...shared,
    commonAddress: int(s.commonAddress, 1, MAX_COMMON_ADDRESS, 1),
    // k and w per clause 5.5: w should not exceed two thirds of k.
    timers: {
      k: int(s.k, ...APCI_RANGES.k, DEFAULT_TIMERS.k), w: int(s.w, ...APCI_RANGES.w, DEFAULT_TIMERS.w),
      t0Ms: sec('t0', DEFAULT_TIMERS.t0Ms), t1Ms: sec('t1', DEFAULT_TIMERS.t1Ms), t2Ms: sec('t2', DEFAULT_TIMERS.t2Ms), t3Ms: sec('t3', DEFAULT_TIMERS.t3Ms),
    },
  };
}
