// The control-room board's rules (issue 32 point 1, docs/decisions.md#the-board): which priority each item has
// and the one order of the board, pure. api/board/routes.ts reads the rows and asks these; the portal shows
// them in the order given. Active incidents lead their priority, then alarms; within a priority the newest
// first. For an organisation with MaskFaultDetails every kind that names a class of fault has one priority
// (the highest such kind's), so neither the priority nor the order tells one class from another.
import { ALARM_KINDS, alarmKind, isFaultClassKind, type AlarmPriority } from './alarm-kinds.js';

export const PRIORITIES: readonly AlarmPriority[] = ['critical', 'high', 'medium', 'low'];
const RANK = new Map(PRIORITIES.map((p, i) => [p, i]));
export const priorityRank = (p: AlarmPriority): number => RANK.get(p)!;

/** The priority a masked organisation reads for every class kind: the highest of them, never an understatement. */
export const MASKED_FAULT_PRIORITY: AlarmPriority = ALARM_KINDS.filter((k) => k.namesClass)
  .map((k) => k.priority).sort((a, b) => priorityRank(a) - priorityRank(b))[0]!;

export function alarmPriority(kind: string, masked: boolean): AlarmPriority {
  if (masked && isFaultClassKind(kind)) return MASKED_FAULT_PRIORITY;
  return alarmKind(kind)?.priority ?? 'medium';
}

export type IncidentStatus = 'open' | 'located' | 'restored' | 'closed';

/** An incident still faulted (open, located) is critical; restored and awaiting its closing, medium. */
export function incidentPriority(status: IncidentStatus): AlarmPriority {
  return status === 'open' || status === 'located' ? 'critical' : 'medium';
}

export interface Ordered {
  type: 'incident' | 'alarm';
  priority: AlarmPriority;
  /** Epoch ms the item began (an incident's opening, an alarm's raising). */
  at: number;
  id: number;
}

/** The board's order: priority, then incidents before alarms, then newest first, then id (a total order). */
export function compareBoardItems(a: Ordered, b: Ordered): number {
  return priorityRank(a.priority) - priorityRank(b.priority)
    || (a.type === b.type ? 0 : a.type === 'incident' ? -1 : 1)
    || b.at - a.at
    || b.id - a.id;
}

/** What the board counts in the tab title: items that want an operator (incidents still open, unacknowledged alarms). */
export interface BoardCount { incidents: number; unacknowledged: number; critical: number }
