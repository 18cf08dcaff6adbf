// The reads of incident causes (docs/reliability-export.md#causes): the organisation's list and an incident's
// history of recorded causes, shared by the cause routes (cause.ts) and the incident detail (routes.ts).
import type pg from 'pg';
import { CAUSE_HISTORY_PAGE, DEFAULT_CAUSE_IDS } from '../../domain/incident-causes.js';

export interface CauseList { causes: readonly string[]; configured: boolean; updatedBy: string | null; updatedAt: string | null }

/** The organisation's list of causes: its own, else the default. */
export async function causeList(db: pg.Pool | pg.ClientBase, org: string): Promise<CauseList> {
  const { rows: [row] } = await db.query<{ causes: string[]; updated_by: string; updated_at: Date }>(
    'select causes, updated_by, updated_at from incident_cause_lists where "OrganizationID" = $1', [org]);
  return row
    ? { causes: row.causes, configured: true, updatedBy: row.updated_by, updatedAt: row.updated_at.toISOString() }
    : { causes: DEFAULT_CAUSE_IDS, configured: false, updatedBy: null, updatedAt: null };
}

/** One recorded cause; `id` orders the history (newest highest) and is the page cursor. */
export interface CauseChange { id: number; cause: string; majorEvent: boolean; note: string | null; setBy: string; setAt: string }

/** A page of an incident's cause history, newest first; `next`: the `before` of the following page, null at the end. */
export interface CauseHistoryPage { data: CauseChange[]; next: number | null }

/**
 * The causes recorded for an incident, newest first, `limit` of them, older than record `before` when given:
 * a keyset on incident_cause_changes (incident_id, id desc) (migration 0028), so a page costs its rows.
 */
export async function causeHistory(db: pg.Pool | pg.ClientBase, incidentId: string, { limit = CAUSE_HISTORY_PAGE.default, before = null }: { limit?: number; before?: number | null } = {}): Promise<CauseHistoryPage> {
  const { rows } = await db.query<{ id: string; cause: string; major_event: boolean; note: string | null; set_by: string; set_at: Date }>(
    `select id, cause, major_event, note, set_by, set_at from incident_cause_changes
      where incident_id = $1 and ($2::bigint is null or id < $2::bigint) order by id desc limit $3`, [incidentId, before, limit + 1]);
  const data = rows.slice(0, limit).map((r) => ({ id: Number(r.id), cause: r.cause, majorEvent: r.major_event, note: r.note, setBy: r.set_by, setAt: r.set_at.toISOString() }));
  return { data, next: rows.length > limit ? data[data.length - 1]!.id : null };
}

/** The history's first page as the incident detail shows it: `causeHistory` and the cursor of the next page. */
export const historyFields = (page: CauseHistoryPage) => ({ causeHistory: page.data, causeHistoryNext: page.next });
