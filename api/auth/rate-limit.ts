// Login rate limit (docs/decisions.md: per email and per client address; #hostile-callers: one limiter shared
// by REST and SOAP, IPv6 counted per /64). An in-process sliding window: the times of recent failed attempts
// per key. A process restart forgets them, which is acceptable for a
// limit whose job is to make password guessing slow; several API processes each keep their own window.
import { addressKey } from '../../domain/ip-address.js';

export interface SlidingWindowOptions {
  /** Attempts allowed inside one window. */
  max: number;
  windowMs: number;
  /** Keys kept at most; the least recently used go first, so a flood of random emails cannot exhaust memory. */
  maxKeys?: number;
}

export class SlidingWindow {
  private readonly hits = new Map<string, number[]>();
  private readonly max: number;
  private readonly windowMs: number;
  private readonly maxKeys: number;

  constructor({ max, windowMs, maxKeys = 100_000 }: SlidingWindowOptions) {
    this.max = max;
    this.windowMs = windowMs;
    this.maxKeys = maxKeys;
  }

  private recent(key: string, now: number): number[] {
    const times = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (times.length === 0) this.hits.delete(key);
    else this.hits.set(key, times);
    return times;
  }

  /** Milliseconds until `key` may try again; 0 when it may now. */
  retryAfterMs(key: string, now: number): number {
    const times = this.recent(key, now);
    if (times.length < this.max) return 0;
    return times[times.length - this.max]! + this.windowMs - now;
  }

  record(key: string, now: number): void {
    const times = this.recent(key, now);
    times.push(now);
    this.hits.delete(key); // re-insert: Map order is the LRU order
    this.hits.set(key, times);
    while (this.hits.size > this.maxKeys) this.hits.delete(this.hits.keys().next().value!);
  }

  /** Takes back one attempt recorded at `at` (a login that turned out right). */
  forget(key: string, at: number): void {
    const times = this.hits.get(key);
    const i = times?.lastIndexOf(at) ?? -1;
    if (i >= 0) times!.splice(i, 1);
    if (times?.length === 0) this.hits.delete(key);
  }
}

export interface LoginLimitOptions {
  perEmail?: SlidingWindowOptions;
  perAddress?: SlidingWindowOptions;
}

/** 10 failed logins per email and 50 per client address in 15 minutes. */
export const DEFAULT_LOGIN_LIMITS: Required<LoginLimitOptions> = {
  perEmail: { max: 10, windowMs: 15 * 60_000 },
  perAddress: { max: 50, windowMs: 15 * 60_000 },
};

export class LoginLimiter {
  private readonly email: SlidingWindow;
  private readonly address: SlidingWindow;

  constructor({ perEmail = DEFAULT_LOGIN_LIMITS.perEmail, perAddress = DEFAULT_LOGIN_LIMITS.perAddress }: LoginLimitOptions = {}) {
    this.email = new SlidingWindow(perEmail);
    this.address = new SlidingWindow(perAddress);
  }

  /** Seconds to wait (rounded up, at least 1) when either window is full, else 0. */
  retryAfterS(email: string, address: string, now: number): number {
    const ms = Math.max(this.email.retryAfterMs(email.toLowerCase(), now), this.address.retryAfterMs(addressKey(address), now));
    return ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 0;
  }

  /** Counts a failed attempt against both keys. Successful logins are not counted: a script that logs in
   * before each run must not lock itself out. */
  failed(email: string, address: string, now: number): void {
    this.email.record(email.toLowerCase(), now);
    this.address.record(addressKey(address), now);
  }

  /**
   * Integration keys (key-check.ts) have no email: they count in the address window alone, the one logins fill,
   * so a scanner cannot alternate logins and keys to double its guesses. A key is never locked out by its id:
   * the id is not secret, and a lock on it would let anyone who saw it deny the integration its key.
   */
  addressRetryAfterS(address: string, now: number): number {
    const ms = this.address.retryAfterMs(addressKey(address), now);
    return ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 0;
  }

  addressFailed(address: string, now: number): void {
    this.address.record(addressKey(address), now);
  }

  /** Takes back an attempt counted with `failed` at `at` before its password was checked (login-check.ts counts
   * first, so a burst of concurrent guesses cannot all pass the limit before the first one fails). */
  succeeded(email: string, address: string, at: number): void {
    this.email.forget(email.toLowerCase(), at);
    this.address.forget(addressKey(address), at);
  }
}
