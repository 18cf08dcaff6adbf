// The shape of GET /api/board (api/board/routes.ts) and its conditional poll: the board is asked every few
// seconds with the ETag of the last answer, and an unchanged board comes back as a 304 of no body
// (docs/decisions.md#the-board says why polling and not server-sent events).
import { ApiError, queryString } from './client';
import { endSession, getSession, REJECTED_MESSAGE } from './session';

export type Priority = 'critical' | 'high' | 'medium' | 'low';
export type AlarmClass = 'operations' | 'maintenance';
export type BoardAlarmState = 'unacknowledged-active' | 'acknowledged-active' | 'unacknowledged-cleared' | 'normal' | 'shelved';

interface Section { label: string; phase: string; from: { imei: string; name: string | null }; to: { imei: string; name: string | null }[] }

export interface BoardIncident {
  type: 'incident'; id: number; priority: Priority; at: number; powerLineId: string; powerLineName: string | null;
  status: 'open' | 'located' | 'restored'; kind: string; openedAt: string; firstTripAt: string; locatedAt: string | null; restoredAt: string | null; sections: Section[];
}

export interface BoardAlarm {
  type: 'alarm'; id: number; priority: Priority; at: number; kind: string; label: string | null; class: AlarmClass; state: BoardAlarmState;
  IMEINumber: string; Real_Name: string | null; powerLineId: string | null; powerLineName: string | null; codeText: string | null;
  raisedAt: string; acknowledgedAt: string | null; acknowledgedBy: string | null; clearedAt: string | null; shelvable: boolean; shelveMaxMinutes: number | null;
  /** A chattering alarm is one row: its episodes (1: not chattering), the first raise (raisedAt) and the last. */
  episodes: number; lastRaisedAt: string;
  /** A chattering alarm: the device times of its first and last episode (null when not chattering). */
  firstEpisodeAt: string | null; lastEpisodeAt: string | null;
  /** A recurring-section alarm's count: how many incidents within how many days in which section. */
  summary: string | null;
}

export interface Shelf { IMEINumber: string; Real_Name: string | null; kind: string; label: string; until: string; shelvedBy: string; shelvedAt: string; alarmId: number | null }

export interface Board {
  counts: { incidents: number; unacknowledged: number; critical: number; shelved: number };
  items: (BoardIncident | BoardAlarm)[];
  acknowledged: BoardAlarm[];
  shelved: Shelf[];
  truncated: boolean;
}

/** The board, or null when it is unchanged since `etag`; the new ETag with it. */
export async function pollBoard(cls: string, etag: string | null, signal: AbortSignal): Promise<{ board: Board | null; etag: string | null }> {
  const session = getSession();
  let res: Response;
  try {
    res = await fetch(`/api/board${queryString({ class: cls })}`, {
      headers: { accept: 'application/json', ...(session ? { authorization: `Bearer ${session.token}` } : {}), ...(etag ? { 'if-none-match': etag } : {}) },
      cache: 'no-store', signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError('NETWORK', 'Cannot reach the faultline server. Check the network connection; the board retries on its own.', 0);
  }
  if (res.status === 401) {
    endSession(REJECTED_MESSAGE);
    throw new ApiError('UNAUTHENTICATED', REJECTED_MESSAGE, 401);
  }
  if (res.status === 304) return { board: null, etag };
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    throw new ApiError(body.error?.code ?? `HTTP_${res.status}`, body.error?.message ?? `The server answered ${res.status}.`, res.status);
  }
  return { board: (await res.json()) as Board, etag: res.headers.get('etag') };
}
