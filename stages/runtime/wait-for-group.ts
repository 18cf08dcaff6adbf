// Waits until a consumer group has committed up to given offsets (catch-up.ts), looking every `pollMs`. One
// loop for replay (each live segment applying what was re-sent) and for fault-compute's wait for persist
// (stored-barrier.ts). A group that never committed stands at the start of what the log holds (groupLag).
import type { Transport } from './transport/transport.js';
import { stillBehind, type Behind } from './catch-up.js';

export interface GroupWait {
  pollMs: number;
  /** Ends the wait early: it then resolves with caughtUp false. */
  signal?: AbortSignal;
  /** After each look, with what is still behind (empty once caught up). What it throws ends the wait with that error. */
  onLook?(behind: Behind[]): void | Promise<void>;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
});

export async function waitForGroup(
  transport: Transport, group: string, topic: string, targets: ReadonlyMap<number, bigint>, { pollMs, signal, onLook }: GroupWait,
): Promise<{ caughtUp: boolean; behind: Behind[] }> {
  for (;;) {
    const behind = stillBehind(await transport.groupLag(group, topic), targets);
    await onLook?.(behind);
    if (behind.length === 0) return { caughtUp: true, behind };
    if (signal?.aborted) return { caughtUp: false, behind };
    await sleep(pollMs, signal);
  }
}
