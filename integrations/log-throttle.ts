// One log line per key per window (docs/decisions.md#scada-listener-slots-sessions-and-claims): the SCADA
// listener's refusals come in floods from one address, and a line per refusal would fill the disk for the
// attacker. The first refusal of a key in a window is logged with the number left out since that key's last line;
// the metric counts every one. A key is an address, and an attacker with an IPv6 /48 has 65,536 of them, so each
// group (a refusal reason) also has a line budget per window across all its keys: past it the group's refusals are
// only counted, and its next line says how many (docs/decisions.md#refusal-log-budget). Pure; the clock is passed
// for tests.

/** Keys kept at most: past this the stale ones go, then the oldest (their left-out count is only in the metric). */
const MAX_KEYS = 10_000;

/** What the caller logs: the key's refusals left out since its last line, and the group's left out by its budget. */
export interface LogLine {
  alsoRefused: number;
  /** Refusals of this group (any key) left out since its last line because its budget was spent. */
  overBudget: number;
  /** This line spends the group's budget: say that the group's next refusals in the window are only counted. */
  lastInWindow: boolean;
}

export class LogThrottle {
  /** Insertion order is `since` order: a key is re-inserted exactly when its `since` is set (pass). */
  private readonly keys = new Map<string, { since: number; quiet: number }>();
  private readonly groups = new Map<string, { since: number; lines: number; overBudget: number }>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
    /** Lines per group per window, all keys together. */
    private readonly linesPerGroup = 20,
  ) {}

  /** Whether to log now for `key` of `group`: the line's counts, or undefined to leave this one out. */
  pass(key: string, group = ''): LogLine | undefined {
    const t = this.now();
    const k = this.keys.get(key);
    if (k && t - k.since < this.windowMs) {
      k.quiet++;
      return undefined;
    }
    let g = this.groups.get(group);
    if (!g || t - g.since >= this.windowMs) {
      g = { since: t, lines: 0, overBudget: g?.overBudget ?? 0 };
      this.groups.set(group, g);
    }
    if (g.lines >= this.linesPerGroup) {
      // The key is not recorded: a flood of fresh keys past the budget neither logs nor grows the map.
      g.overBudget++;
      return undefined;
    }
    g.lines++;
    const line = { alsoRefused: k?.quiet ?? 0, overBudget: g.overBudget, lastInWindow: g.lines === this.linesPerGroup };
    g.overBudget = 0;
    this.keys.delete(key);
    this.keys.set(key, { since: t, quiet: 0 });
    if (this.keys.size > MAX_KEYS) this.prune(t);
    return line;
  }

  /** Stale keys go from the oldest until the first fresh one (the map is in `since` order), then the oldest past the bound. */
  private prune(t: number): void {
    for (const [key, k] of this.keys) {
      if (t - k.since < this.windowMs) break;
      this.keys.delete(key);
    }
    while (this.keys.size > MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
  }
}
