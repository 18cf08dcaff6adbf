// When a spool file that does not parse counts as finished (and so as MALFORMED) rather than still being
// written: when neither its modification time nor what the spool saw of it changed within SETTLE_MS. The
// spool's own observation covers a writer whose clock lags; a modification time far in the future (a clock
// ahead) is ignored, so it cannot hold a file forever.

export const SETTLE_MS = 1000;

/** A file as the spool saw it: size and modification time, and when the spool first saw it so. */
export interface SeenState {
  size: number;
  mtimeMs: number;
  since: number;
}

export function settling(seen: SeenState, now: number): boolean {
  const modified = seen.mtimeMs > now + SETTLE_MS ? -Infinity : seen.mtimeMs;
  return now - Math.max(modified, seen.since) < SETTLE_MS;
}
