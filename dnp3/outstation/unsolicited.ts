// The outstation's unsolicited state (IEEE 1815 5.1.1.1.2, 4.2.2.4): which event classes the master enabled,
// whether the null unsolicited response after a restart was confirmed, the one unsolicited fragment awaiting
// its CONFIRM with its retries, and the unsolicited sequence numbers (their own series, apart from the
// solicited ones). No events, no socket, no clock: outstation.ts hands in the times and the fragment bytes.
import { nextSeq } from '../app/header.js';

/** A fragment sent and awaiting CONFIRM: its sequence number and the events it carries. */
export interface PendingFragment { bytes: Uint8Array; seq: number; eventIds: number[] }

interface UnsolicitedWait { fragment: PendingFragment; deadline: number; retries: number; isNull: boolean }

/** What the confirm timer says: nothing awaited, still waiting, send the same fragment again, or give it up. */
export type UnsolicitedTimer = { kind: 'idle' } | { kind: 'waiting' } | { kind: 'retry'; bytes: Uint8Array } | { kind: 'gaveUp' };

export class UnsolicitedState {
  private seq = 0;
  /** Bit c set: class c (1..3) enabled by ENABLE_UNSOLICITED (g60v2..4). */
  private classMask = 0;
  private nullConfirmed = false;
  private wait: UnsolicitedWait | undefined;

  constructor(private readonly timing: { confirmTimeoutMs: number; maxRetries: number }) {}

  /** ENABLE_UNSOLICITED or DISABLE_UNSOLICITED of the classes in `mask` (bit c: class c). */
  setClasses(mask: number, enable: boolean): void {
    this.classMask = enable ? this.classMask | mask : this.classMask & ~mask;
  }

  /** The event classes the master enabled. */
  enabledClasses(): Set<number> {
    return new Set([1, 2, 3].filter((c) => this.classMask & (1 << c)));
  }

  /** After a restart the first unsolicited response is a null one, and events wait until it is confirmed. */
  needsNullResponse(): boolean {
    return !this.nullConfirmed;
  }

  /** The deadline of the fragment awaiting CONFIRM, if any. */
  deadline(): number | undefined {
    return this.wait?.deadline;
  }

  /** A new unsolicited fragment with the current sequence number, awaiting CONFIRM from `nowMs`. */
  send(build: (seq: number) => Uint8Array, eventIds: number[], isNull: boolean, nowMs: number): Uint8Array {
    const seq = this.seq;
    const bytes = build(seq);
    this.wait = { fragment: { bytes, seq, eventIds }, deadline: nowMs + this.timing.confirmTimeoutMs, retries: 0, isNull };
    return bytes;
  }

  /** A CONFIRM with UNS set: the fragment it confirms, or undefined when none awaits that sequence number. */
  confirm(seq: number): PendingFragment | undefined {
    const w = this.wait;
    if (!w || w.fragment.seq !== seq) return undefined;
    if (w.isNull) this.nullConfirmed = true;
    this.wait = undefined;
    this.seq = nextSeq(seq);
    return w.fragment;
  }

  /** The awaited fragment abandoned (a new connection): true when there was one; the next goes with the next sequence number. */
  abandon(): boolean {
    if (!this.wait) return false;
    this.wait = undefined;
    this.seq = nextSeq(this.seq);
    return true;
  }

  /** At `nowMs`: a fragment past its deadline is sent again, up to the retries allowed, then given up. */
  timer(nowMs: number): UnsolicitedTimer {
    const w = this.wait;
    if (!w) return { kind: 'idle' };
    if (nowMs < w.deadline) return { kind: 'waiting' };
    if (w.retries >= this.timing.maxRetries) {
      this.abandon();
      return { kind: 'gaveUp' };
    }
    w.retries++;
    w.deadline = nowMs + this.timing.confirmTimeoutMs;
    return { kind: 'retry', bytes: w.fragment.bytes };
  }
}
