// Chattering alarms (issue 43 point 5; ISA-18.2's "chattering alarm"; docs/decisions.md#hot-spots-and-chattering-alarms),
// pure: a fault-code alarm of a device raised again within CHATTER_WINDOW_MS of its last raise (device time: the
// raising check-ins' dates), after it cleared and before anyone acknowledged it, is the same alarm chattering.
// alarms/raise.ts then reopens that row (one more episode, its last raise) in the statement that would have
// inserted a new one, so a burst of toggling check-ins leaves one board row with a count, not one row per episode.
import { ALARM_KIND_IDS, alarmKind } from './alarm-kinds.js';

/** A raise this soon after the row's last raise (device time) continues the same row. */
export const CHATTER_WINDOW_MS = 10 * 60_000;

/** Kinds whose alarms chatter: those a check-in's fault code raises and clears (a toggling indicator). */
export const chatters = (kind: string): boolean => alarmKind(kind)?.source === 'fault-code';

/** The kinds that chatter, for the router's hold (alarms/router.ts). */
export const CHATTERING_KINDS: readonly string[] = ALARM_KIND_IDS.filter(chatters);

/**
 * A chattering kind's `cleared` change waits this long on the service clock before it is routed (unless the row
 * was acknowledged or the device raised a newer row of the kind meanwhile): a raise within the window reopens the
 * row and takes the waiting clear back, so a recipient never holds "cleared" while the fault stands
 * (docs/decisions.md#hot-spots-and-chattering-alarms).
 */
export const CLEAR_HOLD_MS = CHATTER_WINDOW_MS;

/** A row of more than one episode is a chattering alarm. */
export const isChattering = (episodes: number): boolean => episodes > 1;

