// Events waiting for a master, per class, oldest first. An event leaves the buffer only when the fragment that
// carried it is confirmed; until then it is "selected" by the solicited or the unsolicited response. When a
// class is full the oldest event of that class is dropped and EVENT_BUFFER_OVERFLOW (IIN2.3, IEEE 1815) is raised, as opendnp3 does.
import type { EventDraft, PointType } from './database.js';

export type Selector = 'sol' | 'unsol';

export interface BufferedEvent extends EventDraft {
  id: number;
  selected: Selector | null;
}

export interface SelectFilter {
  classes: ReadonlySet<number>;
  type?: PointType;
  limit?: number;
}

export class EventBuffer {
  private events: BufferedEvent[] = [];
  private nextId = 1;
  /** Events per class, so a push is O(1) until a class is full. */
  private readonly counts = new Map<number, number>();
  /** Set on a drop; cleared once confirmations leave every class below capacity. */
  overflow = false;

  constructor(private readonly capacityPerClass: number) {}

  push(draft: EventDraft): void {
    if (this.countOf(draft.eventClass) >= this.capacityPerClass) {
      const sameClass = this.events.filter((e) => e.eventClass === draft.eventClass);
      // Drop the oldest event of the class that nobody is waiting to have confirmed; if all are selected,
      // drop the oldest anyway: memory must stay bounded.
      const victim = sameClass.find((e) => e.selected === null) ?? sameClass[0]!;
      this.events = this.events.filter((e) => e !== victim);
      this.counts.set(draft.eventClass, this.countOf(draft.eventClass) - 1);
      this.overflow = true;
    }
    this.events.push({ ...draft, id: this.nextId++, selected: null });
    this.counts.set(draft.eventClass, this.countOf(draft.eventClass) + 1);
  }

  private countOf(eventClass: number): number {
    return this.counts.get(eventClass) ?? 0;
  }

  /** Unselected events per class (IIN1.1..1.3). */
  pendingClasses(): Set<number> {
    const out = new Set<number>();
    for (const e of this.events) if (e.selected === null) out.add(e.eventClass);
    return out;
  }

  size(): number {
    return this.events.length;
  }

  select(filter: SelectFilter, by: Selector): BufferedEvent[] {
    const out: BufferedEvent[] = [];
    for (const e of this.events) {
      if (filter.limit !== undefined && out.length >= filter.limit) break;
      if (e.selected !== null || !filter.classes.has(e.eventClass)) continue;
      if (filter.type && e.type !== filter.type) continue;
      e.selected = by;
      out.push(e);
    }
    return out;
  }

  /** Returns events selected by `by` (all, or only `ids`) to the unselected state. */
  unselect(by: Selector, ids?: ReadonlySet<number>): void {
    for (const e of this.events) if (e.selected === by && (!ids || ids.has(e.id))) e.selected = null;
  }

  /** The buffered events with these ids (for the observer of sends and confirms). */
  byIds(ids: readonly number[]): BufferedEvent[] {
    if (ids.length === 0) return [];
    const set = new Set(ids);
    return this.events.filter((e) => set.has(e.id));
  }

  /** Deletes confirmed events. */
  remove(ids: readonly number[]): void {
    if (ids.length === 0) return;
    const set = new Set(ids);
    this.events = this.events.filter((e) => !set.has(e.id));
    this.counts.clear();
    for (const e of this.events) this.counts.set(e.eventClass, this.countOf(e.eventClass) + 1);
    if (this.overflow && [...this.counts.values()].every((n) => n < this.capacityPerClass)) this.overflow = false;
  }
}
