// The shapes of GET /api/incidents, /api/incidents/<id> and /api/feeder-topology (api/incidents/routes.ts).
/** imei and name null: an indicator outside the caller's reach (docs/decisions.md#reach-applied-once). */
export interface SectionEnd { imei: string | null; name: string | null }
export interface Section { phase: string; from: SectionEnd; to: SectionEnd[]; spans: (SectionEnd & { reason: string })[]; label: string }

export interface Incident {
  id: number;
  powerLineId: string;
  powerLineName: string | null;
  status: 'open' | 'located' | 'restored' | 'closed';
  kind: 'momentary' | 'permanent' | 'unknown';
  firstTripAt: string;
  lastTripAt: string;
  openedAt: string;
  locatedAt: string | null;
  restoredAt: string | null;
  closedAt: string | null;
  sections: Section[];
  trippedDevices: number;
  /** The cause recorded last (POST /api/incidents/<id>/cause), null: none yet; and its major-event flag. */
  cause: string | null;
  majorEvent: boolean;
}

/** One recorded cause (docs/reliability-export.md#causes); `id` orders the history and pages it. */
export interface CauseChange { id: number; cause: string; majorEvent: boolean; note: string | null; setBy: string; setAt: string }
/** A page of GET /api/incidents/<id>/cause-history: `next` is the `before` of the older page, null at the end. */
export interface CauseHistoryPage { data: CauseChange[]; next: number | null }
export interface CauseList { data: { id: string; label: string | null }[] }

export interface IncidentDetail extends Incident {
  devices: { IMEINumber: string; name: string | null; eventType: string; trippedAt: string; phase: string | null; section: string | null }[];
  timeline: { at: string; what: string; detail: Record<string, unknown> }[];
  /** The newest causes recorded (a page); older ones from GET /api/incidents/<id>/cause-history?before=causeHistoryNext. */
  causeHistory: CauseChange[];
  causeHistoryNext: number | null;
}

export interface TopologyRow { IMEINumber: string; PowerLineID: string | null; UpstreamIMEI: string | null; Phase: string; Section: string | null }

/** "below Pole 7, above Pole 9, Pole 10" / "to the end of the line", and what widened it. */
export function sectionText(s: Section): string {
  const name = (e: SectionEnd) => e.name ?? e.imei ?? 'an indicator outside your reach';
  const below = s.to.length === 0 ? 'to the end of the line' : `above ${s.to.map(name).join(', ')}`;
  const wide = s.spans.length ? `; widened over ${s.spans.map((x) => `${name(x)} (${x.reason})`).join(', ')}` : '';
  return `${s.label} (phase ${s.phase}): below ${name(s.from)}, ${below}${wide}`;
}
