// The one timer that writes an in-memory batch every few seconds (a station's events and point image, the
// SCADA masters' diagnostic counts; docs/decisions.md#plumbing-written-once). Writes never overlap: a flush
// asked while one runs runs after it, so a batch taken by one write is never written twice at once. The timer
// does not keep the process alive; stop() ends it and writes what is left.

export class FlushTimer {
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  /**
   * `write`: takes what is waiting and stores it; what it cannot store it keeps for the next flush.
   * `onError`: a write that threw anyway (the timer's flush has no caller to reject).
   */
  constructor(private readonly write: () => Promise<void>, private readonly onError: (err: unknown) => void) {}

  /** A flush every `everyMs`; a second start keeps the first timer. */
  start(everyMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => { this.flush().catch(this.onError); }, everyMs);
    this.timer.unref();
  }

  /** One write, after those already asked for. */
  flush(): Promise<void> {
    const next = this.flushing.then(() => this.write());
    this.flushing = next.catch(() => {});
    return next;
  }

  /** No more timed flushes; the last write done. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
