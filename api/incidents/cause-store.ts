// The reads of incident causes (docs/reliability-export.md#causes): the organisation's list and an incident's
// history of recorded causes, shared by the cause routes (cause.ts) and the incident detail (routes.ts).
import type pg from 'pg';
import { DEFAULT_CAUSE_IDS } from '../../domain/incident-causes.js';

export interface CauseList { causes: readonly string[]; configured: boolean; updatedBy: string | null; updatedAt: string | null }

/** The organisation's list of causes: its own, else the default. */
export async function causeList(db: pg.Pool | pg.ClientBase, org: string): Promise<CauseList> {
  const { rows: [row] } = await db.query<{ causes: string[]; updated_by: string; updated_at: Date }>(
    'select causes, updated_by, updated_at from incident_cause_lists where "OrganizationID" = $1', [org]);
  return row
    ? { causes: row.causes, configured: true, updatedBy: row.updated_by, updatedAt: row.updated_at.toISOString() }
    : { causes: DEFAULT_CAUSE_IDS, configured: false, updatedBy: null, updatedAt: null };
}

export interface CauseChange { cause: string; majorEvent: boolean; note: string | null; setBy: string; setAt: string }

/** Every cause recorded for an incident, newest first. */
export async function causeHistory(db: pg.Pool, incidentId: string): Promise<CauseChange[]> {
  const { rows } = await db.query<{ cause: string; major_event: boolean; note: string | null; set_by: string; set_at: Date }>(
    'select cause, major_event, note, set_by, set_at from incident_cause_changes where incident_id = $1 order by id desc', [incidentId]);
  return rows.map((r) => ({ cause: r.cause, majorEvent: r.major_event, note: r.note, setBy: r.set_by, setAt: r.set_at.toISOString() }));
}
