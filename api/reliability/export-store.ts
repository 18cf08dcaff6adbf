// The SQL of the reliability export (export.ts): the incidents of a window in the caller's reach, in keyset
// batches, each row with what the export's columns need (docs/reliability-export.md).
import type pg from 'pg';
import { ONGOING_FAULT } from '../../domain/ongoing-fault-codes.js';
import type { FaultedSection } from '../../domain/faulted-section.js';
import type { Caller } from '../auth/caller.js';
import { SqlParams } from '../device-records/sql.js';
import { tripInReach, visible } from '../incidents/store.js';
import { sectionPresenter } from '../incidents/section-reach.js';
import type { ExportSource } from './export-columns.js';

/** Rows per read and per Parquet row group: a batch is a few hundred kB however long the period. */
export const EXPORT_BATCH = 1_000;

export interface Window { fromMs: number | null; untilMs: number | null }

/**
 * Where a batch ends: the next batch starts after this incident in (first trip, id) order. The first trip as
 * Postgres wrote it (text): a JavaScript Date drops the microseconds, and the keyset would then read the last
 * row again.
 */
interface After { firstTripAt: string; id: string }

/**
 * The statement of one batch: the incidents of the window in the caller's reach after `after`, in first trip
 * order (ties by id), `size` of them. The keyset walks incidents ("OrganizationID", first_trip_at, id)
 * (migration 0032) from the window's start: a narrow window reads its own incidents, not the organisation's
 * history (review M6, test/integration/reliability/read-plans.test.ts).
 */
export function exportBatchQuery(caller: Caller, window: Window, after: After | null, size = EXPORT_BATCH): { text: string; values: unknown[] } {
  const p = new SqlParams();
  const where = [visible(caller, p)];
  if (after !== null) where.push(`(i.first_trip_at, i.id) > (${p.add(after.firstTripAt)}::timestamptz, ${p.add(after.id)}::bigint)`);
  if (window.fromMs !== null) where.push(`i.first_trip_at >= ${p.add(new Date(window.fromMs))}::timestamptz`);
  if (window.untilMs !== null) where.push(`i.first_trip_at < ${p.add(new Date(window.untilMs))}::timestamptz`);
  const clean = p.add([ONGOING_FAULT.NONE, ONGOING_FAULT.CURRENT_RESET]);
  const text = `select i.id, i.first_trip_at::text as trip_key, i."PowerLineID", pl.name as "powerLineName", i.status, i.kind, i.first_trip_at, i.last_trip_at, i.sections,
              array(select x."IMEINumber" from incident_devices x join device_information d on d."IMEINumber" = x."IMEINumber"
                     where x.incident_id = i.id and ${tripInReach(caller, p)} order by x.tripped_at, x."IMEINumber") as indicators,
              -- Restoration by device time (docs/reliability-export.md, column restoredAt). A masked organisation
              -- gets the check-in rule for every kind: restoredAt = lastTripAt would name the momentary ones.
              case when i.restored_at is null then null
                   ${caller.maskFaultDetails ? '' : "when i.kind = 'momentary' then i.last_trip_at"}
                   else (select max((select min(r."date") from device_records r
                                      where r."IMEINumber" = x."IMEINumber" and r."date" > x.tripped_at and r."ActualOngoingFault" = any(${clean}::int[])))
                           from incident_devices x where x.incident_id = i.id) end as restored_device_at,
              -- Customers of the faulted sections where the import gave every one (docs/reliability-export.md, sectionCustomers).
              case when jsonb_array_length(i.sections) = 0 then null
                   else (select case when bool_or(d."SectionCustomers" is null) then null else sum(d."SectionCustomers")::int end
                           from jsonb_array_elements(i.sections) s left join device_information d on d."IMEINumber" = s->'from'->>'imei') end as section_customers,
              c.cause, c.major_event, c.note as cause_note, c.set_by as cause_set_by, c.set_at as cause_set_at
         from incidents i join power_lines pl on pl."Id" = i."PowerLineID"
         left join lateral (select cause, major_event, note, set_by, set_at from incident_cause_changes k
                             where k.incident_id = i.id order by k.id desc limit 1) c on true
        where ${where.join(' and ')}
        order by i.first_trip_at, i.id limit ${p.add(size)}::int`;
  return { text, values: p.values };
}

/** The incidents of the window in the caller's reach, in first trip order, `size` at a time. */
export async function* incidentBatches(pool: pg.Pool, caller: Caller, window: Window, size = EXPORT_BATCH): AsyncGenerator<ExportSource[]> {
  let after: After | null = null;
  for (;;) {
    const q = exportBatchQuery(caller, window, after, size);
    const { rows } = await pool.query<Omit<ExportSource, 'sections'> & { trip_key: string; sections: FaultedSection[] }>(q.text, q.values);
    // The sections' labels name only indicators in the caller's reach, as GET /api/incidents shows them.
    const show = await sectionPresenter(pool, caller, rows.map((r) => r.sections));
    if (rows.length) yield rows.map((r) => ({ ...r, sections: show(r.sections) }));
    if (rows.length < size) return;
    const last = rows[rows.length - 1]!;
    after = { firstTripAt: last.trip_key, id: last.id };
  }
}

