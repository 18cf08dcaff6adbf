// The states of an alarm as ISA-18.2 / IEC 62682 name them (docs/decisions.md#the-board): whether its condition
// still holds (active, or cleared: returned to normal) and whether an operator acknowledged it are two facts,
// kept in two columns (alarms.cleared_at, alarms.acknowledged_at); neither ever sets the other. Shelving is an
// operator's time-limited hiding of an alarm point (device and kind), kept apart from both (alarm_shelves).
import { isChattering } from './alarm-chatter.js';
import { alarmKind, type AlarmClass } from './alarm-kinds.js';

export type AlarmState =
  | 'unacknowledged-active'
  | 'acknowledged-active'
  /** Returned to normal before anyone acknowledged it: it still asks for an acknowledgement. */
  | 'unacknowledged-cleared'
  | 'normal'
  | 'shelved';

export const ALARM_STATE_LABELS: Readonly<Record<AlarmState, string>> = {
  'unacknowledged-active': 'Unacknowledged, active',
  'acknowledged-active': 'Acknowledged, still active',
  'unacknowledged-cleared': 'Cleared, not acknowledged',
  normal: 'Normal (acknowledged and cleared)',
  shelved: 'Shelved',
};

export interface AlarmFacts {
  acknowledgedAt: number | null;
  clearedAt: number | null;
  /** When the shelving of its device and kind ends (null: not shelved). */
  shelvedUntil: number | null;
}

/** Whether a shelving still holds at `nowMs`: it expires by itself, no process has to lift it. */
export const isShelved = (shelvedUntil: number | null, nowMs: number): boolean => shelvedUntil !== null && shelvedUntil > nowMs;

/** The state of an alarm at `nowMs`. An alarm back to normal is normal whether or not it was shelved. */
export function alarmState(a: AlarmFacts, nowMs: number): AlarmState {
  const acknowledged = a.acknowledgedAt !== null;
  const cleared = a.clearedAt !== null;
  if (acknowledged && cleared) return 'normal';
  if (isShelved(a.shelvedUntil, nowMs)) return 'shelved';
  if (cleared) return 'unacknowledged-cleared';
  return acknowledged ? 'acknowledged-active' : 'unacknowledged-active';
}

/** The class an alarm is shown and filtered by: the one its matching rule gave it, else its kind's. */
export function alarmClassOf(kind: string, stored: AlarmClass | null): AlarmClass {
  return stored ?? alarmKind(kind)?.defaultClass ?? 'operations';
}

/**
 * Shelving is for maintenance alarms (issue 32: an operations alarm must stay in sight), and for a chattering
 * alarm (`episodes` > 1, domain/alarm-chatter.ts) of any class: ISA-18.2 names shelving, for a limited time,
 * as the operator's tool against a chattering alarm.
 */
export const mayShelve = (cls: AlarmClass, episodes = 1): boolean => cls === 'maintenance' || isChattering(episodes);

/** The times an operator may shelve for: at least a quarter hour, at most a week (ISA-18.2 wants a limit). */
export const SHELVE_MINUTES = { min: 15, max: 7 * 24 * 60 } as const;
export const SHELVE_CHOICES_MINUTES: readonly number[] = [60, 8 * 60, 24 * 60, 7 * 24 * 60];
/** ALARM_CHATTER_SHELVE_MAX_MINUTES when unset: one shift. */
export const DEFAULT_CHATTER_SHELVE_MAX_MINUTES = 8 * 60;

/**
 * The longest `cls`'s alarm of `episodes` may be shelved for, or null when it may not be: a week for a
 * maintenance alarm; `chatterCapMinutes` for an operations alarm, shelvable only because it chatters (it stays an
 * operations alarm: hidden for at most a shift, and a new row of its point lifts the shelving, alarms/raise.ts).
 */
export function shelveMaxMinutes(cls: AlarmClass, episodes: number, chatterCapMinutes: number): number | null {
  if (!mayShelve(cls, episodes)) return null;
  return cls === 'maintenance' ? SHELVE_MINUTES.max : Math.min(chatterCapMinutes, SHELVE_MINUTES.max);
}

const spoken = (minutes: number) => (minutes === SHELVE_MINUTES.max ? ' (a week)' : '');

/** Why `minutes` is no shelving time (at most `max`), or null. */
export function shelveMinutesProblem(minutes: unknown, max: number = SHELVE_MINUTES.max): string | null {
  if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < SHELVE_MINUTES.min || minutes > max) {
    return `must be a whole number of minutes from ${SHELVE_MINUTES.min} to ${max}${spoken(max)}`;
  }
  return null;
}
