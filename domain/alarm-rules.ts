// Alarm routing decisions (issue 20; docs/decisions.md#alarm-routing), pure: a rule's what / where / when,
// caps, storms and escalation steps. alarms/router.ts reads the database and writes what these decide.
import { Temporal } from 'temporal-polyfill';
import { kindCovered, type AlarmClass } from './alarm-kinds.js';

/** Days 1 (Monday) to 7 (Sunday); `from` and `to` are "HH:MM" in the organisation's zone; `to` before `from` spans midnight. */
export interface AlarmHours {
  days: number[];
  from: string;
  to: string;
}

export interface AlarmEscalation {
  /** An unacknowledged alarm goes to the next roster entry after each such period. */
  afterMinutes: number;
  /** Recipient ids, in order. */
  roster: string[];
}

export interface AlarmRule {
  id: string;
  OrganizationID: string;
  name: string | null;
  class: AlarmClass;
  kinds: string[];
  powerLines: string[];
  groups: string[];
  devices: string[];
  recipients: string[];
  hours: AlarmHours | null;
  escalation: AlarmEscalation | null;
  enabled: boolean;
}

/** What a rule needs to know about the alarm's device. */
export interface AlarmPlace {
  kind: string;
  IMEINumber: string;
  PowerLineID: string | null;
  groups: readonly string[];
}

/** Where: no list given matches every device; otherwise the device, its power line or one of its groups is listed. */
export function ruleMatches(rule: AlarmRule, a: AlarmPlace): boolean {
  if (!rule.enabled || !kindCovered(rule.kinds, a.kind)) return false;
  if (rule.powerLines.length === 0 && rule.groups.length === 0 && rule.devices.length === 0) return true;
  return rule.devices.includes(a.IMEINumber)
    || (a.PowerLineID !== null && rule.powerLines.includes(a.PowerLineID))
    || a.groups.some((g) => rule.groups.includes(g));
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
export const isHourText = (s: string) => HHMM.test(s);
const minutesOf = (s: string) => {
  const m = HHMM.exec(s)!;
  return Number(m[1]) * 60 + Number(m[2]);
};

/** When: null is always; otherwise the local day and time at `nowMs` in `timeZone` lie in the window. */
export function withinHours(hours: AlarmHours | null, nowMs: number, timeZone: string): boolean {
  if (!hours) return true;
  const local = Temporal.Instant.fromEpochMilliseconds(nowMs).toZonedDateTimeISO(timeZone);
  const minute = local.hour * 60 + local.minute;
  const from = minutesOf(hours.from);
  const to = minutesOf(hours.to);
  if (from === to) return hours.days.includes(local.dayOfWeek);
  if (from < to) return hours.days.includes(local.dayOfWeek) && minute >= from && minute < to;
  // Spans midnight: the part after midnight belongs to the previous day's window.
  if (minute >= from) return hours.days.includes(local.dayOfWeek);
  const yesterday = local.dayOfWeek === 1 ? 7 : local.dayOfWeek - 1;
  return minute < to && hours.days.includes(yesterday);
}

/** A recipient's cap: `sent` messages in the last 24 h leave room for one more. */
export const underCap = (sent: number, cap: number): boolean => sent < cap;

/** Escalation steps due at `nowMs` for an alarm raised at `raisedMs`: roster indexes 0..n-1. */
export function escalationStepsDue(e: AlarmEscalation, raisedMs: number, nowMs: number): number[] {
  const periods = Math.floor((nowMs - raisedMs) / (e.afterMinutes * 60_000));
  return Array.from({ length: Math.max(0, Math.min(periods, e.roster.length)) }, (_, i) => i);
}

export interface StormLimits {
  /** More alarms than this in one window make a storm. */
  threshold: number;
  windowMs: number;
}

/**
 * Storm state of an organisation after counting its alarms raised in the last window: a storm starts when
 * the count exceeds the threshold and ends (the closing summary) when a whole window stays at or below it.
 */
export function stormStep(inStorm: boolean, raisedInWindow: number, { threshold }: StormLimits): 'start' | 'continue' | 'end' | 'calm' {
  if (raisedInWindow > threshold) return inStorm ? 'continue' : 'start';
  return inStorm ? 'end' : 'calm';
}

/** A digest is due once per window while the storm lasts. */
export const digestDue = (lastDigestMs: number, nowMs: number, { windowMs }: StormLimits): boolean => nowMs - lastDigestMs >= windowMs;

export interface DigestAlarm { PowerLineID: string | null; class: AlarmClass }
export interface DigestCount { PowerLineID: string | null; class: AlarmClass; count: number }

/** Counts by power line and class, largest first, then by power line. */
export function digestCounts(alarms: readonly DigestAlarm[]): DigestCount[] {
  const counts = new Map<string, DigestCount>();
  for (const a of alarms) {
    const key = `${a.PowerLineID ?? ''}\0${a.class}`;
    const c = counts.get(key) ?? { PowerLineID: a.PowerLineID, class: a.class, count: 0 };
    c.count++;
    counts.set(key, c);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || (a.PowerLineID ?? '').localeCompare(b.PowerLineID ?? '') || a.class.localeCompare(b.class));
}
