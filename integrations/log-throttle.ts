// One log line per key per window (docs/decisions.md#scada-listener-slots-sessions-and-claims): the SCADA
// listener's refusals come in floods from one address, and a line per refusal would fill the disk for the
// attacker. The first refusal of a key in a window is logged with the number left out since that key's last line;
// the metric counts every one. Pure; the clock is passed for tests.

/** Keys kept at most: past this the stale ones go, then the oldest (their left-out count is only in the metric). */
const MAX_KEYS = 10_000;

export class LogThrottle {
  private readonly keys = new Map<string, { since: number; quiet: number }>();

  constructor(private readonly windowMs = 60_000, private readonly now: () => number = Date.now) {}

  /** Whether to log now for `key`: the count left out since its last line, or undefined to leave this one out. */
  pass(key: string): number | undefined {
    const t = this.now();
    const k = this.keys.get(key);
    if (k && t - k.since < this.windowMs) {
      k.quiet++;
      return undefined;
    }
    this.keys.delete(key);
    this.keys.set(key, { since: t, quiet: 0 });
    if (this.keys.size > MAX_KEYS) this.prune(t);
    return k?.quiet ?? 0;
  }

  private prune(t: number): void {
    for (const [key, k] of this.keys) if (t - k.since >= this.windowMs) this.keys.delete(key);
    while (this.keys.size > MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
  }
}
