// Fault incidents (docs/decisions.md#feeder-incidents): which trips form one incident, whether it is momentary
// or permanent, which indicators can bound a section, and the lifecycle open -> located -> restored -> closed.
// Pure: times are numbers (ms), `now` is an argument.
import type { FaultedSection, Health } from './faulted-section.js';
import { ONGOING_FAULT } from './ongoing-fault-codes.js';
import { isOffline, type ClockLimits } from './checkin-clock.js';
import { faultClassOf, type FaultClass } from './fault-events.js';

export type IncidentKind = FaultClass | 'unknown';
export const INCIDENT_KINDS: readonly IncidentKind[] = ['permanent', 'momentary', 'unknown'];

/** Why an incident was restored (its timeline's `reason`): the first names the class, so masking reads both as one. */
export const RESTORED_REASONS = { momentary: 'momentary fault: the line reclosed', currentBack: 'current back on every tripped indicator' } as const;

/** Permanent if any trip says so; momentary if every trip with a class is momentary; else unknown. */
export function incidentKind(eventTypes: Iterable<string>): IncidentKind {
  let kind: IncidentKind = 'unknown';
  for (const t of eventTypes) {
    const c = faultClassOf(t);
    if (c === 'permanent') return 'permanent';
    if (c === 'momentary') kind = 'momentary';
  }
  return kind;
}

export const DEFAULT_INCIDENT_WINDOW_MS = 120_000;

export interface Trip { imei: string; eventType: string; /** Device time of the event (ms). */ at: number }

export interface ActiveIncident<K> { key: K; firstTripAt: number; lastTripAt: number }

export interface TripGroup<K> {
  /** The incident the trips join; null: a new incident. */
  key: K | null;
  trips: Trip[];
  firstTripAt: number;
  lastTripAt: number;
}

/**
 * Assigns one power line's new trips to its active (not closed) incidents: a trip joins an incident when the
 * incident's trips, with it, all lie within one window; otherwise it opens a new one (which later trips may
 * join). Device time, so a trip that arrives late still joins the incident it belongs to.
 *
 * @example
 *   assignTrips([{ key: 7, firstTripAt: 0, lastTripAt: 0 }], [{ imei: 'x', eventType: 'PFault', at: 30_000 }], 120_000)
 *   // [{ key: 7, trips: [...], firstTripAt: 0, lastTripAt: 30_000 }]
 */
export function assignTrips<K>(active: readonly ActiveIncident<K>[], trips: readonly Trip[], windowMs: number): TripGroup<K>[] {
  const groups: TripGroup<K>[] = active.map((a) => ({ key: a.key, trips: [], firstTripAt: a.firstTripAt, lastTripAt: a.lastTripAt }));
  const sorted = [...trips].sort((a, b) => a.at - b.at || (a.imei < b.imei ? -1 : 1));
  for (const t of sorted) {
    const fits = groups
      .filter((g) => Math.max(g.lastTripAt, t.at) - Math.min(g.firstTripAt, t.at) <= windowMs)
      .sort((a, b) => Math.abs(a.firstTripAt - t.at) - Math.abs(b.firstTripAt - t.at))[0];
    if (fits) {
      fits.trips.push(t);
      fits.firstTripAt = Math.min(fits.firstTripAt, t.at);
      fits.lastTripAt = Math.max(fits.lastTripAt, t.at);
    } else {
      groups.push({ key: null, trips: [t], firstTripAt: t.at, lastTripAt: t.at });
    }
  }
  return groups.filter((g) => g.trips.length > 0);
}

/** The latest stored check-in of a device (device_latest), as the incident rules read it. */
/** `expectedS`: the device's learned check-in interval (domain/checkin-clock.ts), null with too little history. */
export interface LatestCheckIn { date: number; actualOngoingFault: number; expectedS: number | null }

/**
 * An indicator bounds a section only when it reports: it is not offline by the communication-lost rule every
 * other output uses (domain/checkin-clock.ts) and is not Disconnected / No Data.
 */
export function deviceHealth(latest: LatestCheckIn | null, now: number, limits: ClockLimits): Health {
  if (latest === null) return { ok: false, reason: 'never checked in' };
  if (latest.actualOngoingFault === ONGOING_FAULT.DISCONNECTED || latest.actualOngoingFault === ONGOING_FAULT.NO_DATA) {
    return { ok: false, reason: 'communication lost' };
  }
  if (isOffline(latest.date, latest.expectedS, now, limits)) return { ok: false, reason: `silent since ${new Date(latest.date).toISOString()}` };
  return { ok: true };
}

/** Current is back on a tripped indicator when it checked in after the trip without a fault (None or Current Reset). */
export function currentBack(trippedAt: number, latest: LatestCheckIn | null): boolean {
  return latest !== null && latest.date > trippedAt
    && (latest.actualOngoingFault === ONGOING_FAULT.NONE || latest.actualOngoingFault === ONGOING_FAULT.CURRENT_RESET);
}

export type IncidentStatus = 'open' | 'located' | 'restored' | 'closed';

export interface IncidentState {
  status: IncidentStatus;
  kind: IncidentKind;
  sections: FaultedSection[];
  locatedAt: number | null;
  restoredAt: number | null;
  closedAt: number | null;
}

export interface IncidentFacts {
  kind: IncidentKind;
  /** The sections for every trip of the incident now (empty: no topology covers its trips). */
  sections: FaultedSection[];
  /** Current back on every tripped indicator. */
  restored: boolean;
  /** Trips joined in this step. */
  joined: number;
  now: number;
  windowMs: number;
}

export type TimelineWhat = 'opened' | 'joined' | 'located' | 'section changed' | 'restored' | 'tripped again' | 'closed';
export interface TimelineEntry { what: TimelineWhat; detail: Record<string, unknown> }

// By content, not by JSON text: sections read back from jsonb come with their keys in another order.
const sectionKey = (s: FaultedSection) => [s.phase, s.from.imei, s.to.map((e) => e.imei).join(','), s.spans.map((e) => `${e.imei}:${e.reason}`).join(','), s.label].join('|');
const sameSections = (a: readonly FaultedSection[], b: readonly FaultedSection[]) => a.map(sectionKey).join('\n') === b.map(sectionKey).join('\n');

/**
 * One step of an incident's lifecycle. Located as soon as a section can be named (it may still move while
 * trips join within the window: "section changed"); restored when the trips were momentary or current is back
 * on every tripped indicator; closed one window after restoration; a restored permanent incident that trips
 * again goes back to located.
 */
export function advanceIncident(prev: IncidentState, f: IncidentFacts): { state: IncidentState; timeline: TimelineEntry[] } {
  const s: IncidentState = { ...prev, kind: f.kind };
  const timeline: TimelineEntry[] = [];
  if (s.status === 'closed') return { state: s, timeline };
  if (f.joined > 0 && s.status === 'restored' && f.kind !== 'momentary') {
    s.status = s.locatedAt === null ? 'open' : 'located';
    s.restoredAt = null;
    timeline.push({ what: 'tripped again', detail: { trips: f.joined } });
  }
  if (!sameSections(prev.sections, f.sections)) {
    s.sections = f.sections;
    if (f.sections.length > 0 && s.locatedAt === null) {
      s.locatedAt = f.now;
      if (s.status === 'open') s.status = 'located';
      timeline.push({ what: 'located', detail: { sections: f.sections } });
    } else {
      timeline.push({ what: 'section changed', detail: { sections: f.sections } });
    }
  }
  if ((s.status === 'open' || s.status === 'located') && (f.kind === 'momentary' || f.restored)) {
    s.status = 'restored';
    s.restoredAt = f.now;
    timeline.push({ what: 'restored', detail: { reason: f.kind === 'momentary' ? RESTORED_REASONS.momentary : RESTORED_REASONS.currentBack } });
  }
  if (s.status === 'restored' && s.restoredAt !== null && f.now - s.restoredAt >= f.windowMs) {
    s.status = 'closed';
    s.closedAt = f.now;
    timeline.push({ what: 'closed', detail: {} });
  }
  return { state: s, timeline };
}
