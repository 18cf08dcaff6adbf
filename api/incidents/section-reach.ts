// The one place an incident's sections are shaped for a caller (the incident list and detail with its
// timeline, the board, the reliability pages' newest incidents): an indicator outside the caller's reach is
// not named (domain/section-reach.ts; docs/decisions.md#reach-applied-once).
import type pg from 'pg';
import type { FaultedSection } from '../../domain/faulted-section.js';
import { sectionImeis, sectionInReach, type ShownSection } from '../../domain/section-reach.js';
import { reachCondition, type ReachCaller } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';

export type ShowSections = (sections: readonly FaultedSection[]) => ShownSection[];

/** How to show the given lists of sections to the caller: one statement asks which of their indicators are in reach. */
export async function sectionPresenter(db: Pick<pg.Pool, 'query'>, caller: ReachCaller, lists: readonly (readonly FaultedSection[])[]): Promise<ShowSections> {
  const imeis = [...new Set(lists.flatMap(sectionImeis))];
  const reached = new Set<string>();
  if (imeis.length > 0) {
    const p = new SqlParams();
    const { rows } = await db.query<{ IMEINumber: string }>(
      `select d."IMEINumber" from device_information d where d."IMEINumber" = any(${p.add(imeis)}::text[]) and ${reachCondition(caller, p)}`, p.values);
    for (const r of rows) reached.add(r.IMEINumber);
  }
  return (sections) => sections.map((s) => sectionInReach(s, (imei) => reached.has(imei)));
}
