// The one place an incident's sections are shaped for a caller (the incident list and detail with its
// timeline, the board, the reliability pages' newest incidents): an indicator outside the caller's reach is
// not named (domain/section-reach.ts; docs/decisions.md#reach-applied-once).
import type pg from 'pg';
import type { FaultedSection } from '../../domain/faulted-section.js';
import { sectionImeis, sectionInReach, type ShownSection } from '../../domain/section-reach.js';
import { imeisInReach, type ReachCaller } from '../device-records/reach.js';

export type ShowSections = (sections: readonly FaultedSection[]) => ShownSection[];

/** How to show the given lists of sections to the caller: one statement asks which of their indicators are in reach. */
export async function sectionPresenter(db: Pick<pg.Pool, 'query'>, caller: ReachCaller, lists: readonly (readonly FaultedSection[])[]): Promise<ShowSections> {
  const reached = await imeisInReach(db, caller, [...new Set(lists.flatMap(sectionImeis))]);
  return (sections) => sections.map((s) => sectionInReach(s, (imei) => reached.has(imei)));
}
