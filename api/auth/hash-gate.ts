// A bound on concurrent password hashes (docs/decisions.md#hostile-callers). One scrypt check costs ~70 ms
// of a core and 32 MiB; a login flood would otherwise queue them without end on libuv's four threads, which
// file reads and DNS share, and every other request would wait behind them. At most `concurrent` run at once;
// up to `waiting` more wait at most `maxWaitMs` for a slot; the rest are refused at once (HashGateBusy), so
// the caller answers 503 with Retry-After instead of queueing.
import { availableParallelism } from 'node:os';
import { FaultlineError } from '../../errors/base.js';

/** The gate's one code: every slot and waiting place is taken; trying again after retryAfterS can help. */
export const HASH_GATE_ERRORS = { HASH_GATE_BUSY: 'too many password checks in progress' } as const;

export class HashGateBusy extends FaultlineError<keyof typeof HASH_GATE_ERRORS> {
  constructor(readonly retryAfterS: number) {
    super('HASH_GATE_BUSY', 'Too many password checks in progress', { retriable: true });
  }
}

export interface HashGateOptions {
  concurrent?: number;
  waiting?: number;
  maxWaitMs?: number;
}

export class HashGate {
  private running = 0;
  private readonly queue: { grant: () => void; timer: NodeJS.Timeout }[] = [];
  readonly concurrent: number;
  readonly waiting: number;
  readonly maxWaitMs: number;
  /** Checks refused since start, and the most that ever ran at once (for tests and logs). */
  refused = 0;
  peak = 0;

  constructor({ concurrent = Math.max(1, Math.min(4, availableParallelism())), waiting = 16, maxWaitMs = 2_000 }: HashGateOptions = {}) {
    this.concurrent = concurrent;
    this.waiting = waiting;
    this.maxWaitMs = maxWaitMs;
  }

  /** Runs `work` in a slot; throws HashGateBusy when no slot frees in time. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrent) {
      this.running++;
      this.peak = Math.max(this.peak, this.running);
      return Promise.resolve();
    }
    const retryAfterS = Math.max(1, Math.ceil(this.maxWaitMs / 1000));
    if (this.queue.length >= this.waiting) {
      this.refused++;
      return Promise.reject(new HashGateBusy(retryAfterS));
    }
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => { clearTimeout(entry.timer); resolve(); },
        timer: setTimeout(() => {
          const i = this.queue.indexOf(entry);
          if (i >= 0) this.queue.splice(i, 1);
          this.refused++;
          reject(new HashGateBusy(retryAfterS));
        }, this.maxWaitMs),
      };
      this.queue.push(entry);
    });
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next.grant(); // the slot passes on: `running` stays
    else this.running--;
  }
}
