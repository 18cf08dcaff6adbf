// What the fleet view calls the API's codes (silence labels, signal, battery status), and how it writes its
// figures: one place, so the cards, the list and the device panel say the same thing. Days are the API's UTC
// days (YYYY-MM-DD), written in the portal's day format (time.ts).
import { fromApiDay } from '../../time';
import type { BatteryStatus, OnlineRate, SilenceLabel, Signal } from './types';

export const SILENCE_TEXT: Record<SilenceLabel, string> = {
  never_commissioned: 'Never commissioned',
  battery_exhausted: 'Battery exhausted',
  signal_decline: 'Signal decline',
  cluster: 'Cluster (likely the carrier)',
  deenergised: 'De-energised section',
  unknown: 'Cause unknown',
};

export const SIGNAL_TEXT: Record<Signal, string> = { ok: 'OK', weak: 'Weak', falling: 'Falling', unknown: 'Not enough data' };

export const BATTERY_TEXT: Record<BatteryStatus, string> = {
  ok: 'OK',
  ends_soon: 'Ends soon',
  not_enough_data: 'Not enough data',
  flat: 'Not enough data (flat curve)',
  line_powered: 'Line powered',
  exhausted: 'Exhausted',
};

/** `YYYY-MMM-DD` of an API UTC day `YYYY-MM-DD`; '—' for none. */
export const utcDay = (day: string | null): string => (day ? fromApiDay(day.replaceAll('-', '')) || day : '—');

/** A share as a percentage with one decimal; '—' when nothing was expected. */
export const percent = (rate: number | null): string => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);

export const count = (n: number): string => n.toLocaleString('en-US');

/** "1,234 of 1,300 check-ins" for an online rate's sums. */
export const ofExpected = (r: Pick<OnlineRate, 'received' | 'expected'>): string => `${count(r.received)} of ${count(r.expected)} expected check-ins`;

/** A number with its unit, or '—'. */
export const withUnit = (v: number | null | undefined, unit: string, digits = 0): string => (v === null || v === undefined ? '—' : `${v.toFixed(digits)} ${unit}`);
