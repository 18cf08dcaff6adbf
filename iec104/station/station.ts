// The controlled station's side of one connection (IEC 60870-5-104 clause 5): STARTDT gating, N(S)/N(R)
// checks, the k window (at most k unacknowledged I frames out), the w rule (acknowledge at the latest after w
// received), timers t1 (acknowledgement and TESTFR con awaited), t2 (acknowledge received I frames), t3 (test an
// idle link). ASDUs leave only while data transfer is started: replies to the master's commands first (lib60870's
// high-priority queue), then the running interrogation's answer as it is built, then events, so events raised
// while no master has started it are delivered, in order, after STARTDT. Bounded (docs/decisions.md#iec-104-bounded-sessions):
// one interrogation at a time, at most MAX_QUEUED_REPLIES replies waiting, and only events outlive the connection.
// Pure: frames and the time in, frames out.
import { encodeApdu, seqDistance, seqNext, type Apdu } from '../apci/apci.js';
import type { RefusalReason } from '../diagnostics/reasons.js';
import { handleAsdu, type StationHandlers } from './application.js';

export interface StationTimers {
  /** Unacknowledged I frames we may have out. */
  k: number;
  /** Received I frames after which we acknowledge. */
  w: number;
  /** Connection establishment (the server's TLS handshake limit). */
  t0Ms: number;
  t1Ms: number;
  t2Ms: number;
  t3Ms: number;
}

/** The standard's defaults (IEC 60870-5-104 clause 9.6). */
export const DEFAULT_TIMERS: StationTimers = { k: 12, w: 8, t0Ms: 30_000, t1Ms: 15_000, t2Ms: 10_000, t3Ms: 20_000 };

/**
 * Replies (confirmations, read answers) that may wait for the send window on one connection; past it the
 * connection closes (`replyQueueFull`). A master that follows its own k and reads what it is sent stays far below.
 */
export const MAX_QUEUED_REPLIES = 1_000;

export interface StationOutput {
  send: Uint8Array[];
  /** Why the connection must close (the station's state is then void). */
  close?: RefusalReason;
  refusals: RefusalReason[];
  clockSync?: number;
  /** ASDUs the master acknowledged with this frame, oldest first. */
  acked?: Uint8Array[];
  /** Events (ASDUs enqueued, never replies) that left in I frames with this output, oldest first. */
  sentEvents?: Uint8Array[];
}

export class Station {
  started = false;
  private vs = 0;
  private vr = 0;
  /** Our I frames not yet acknowledged: their N(S), when they left, and whether an event (not a reply). */
  private readonly unacked: { ns: number; at: number; asdu: Uint8Array; event: boolean }[] = [];
  /** Spontaneous events waiting (they outlive the connection: remaining()). */
  private readonly events: Uint8Array[] = [];
  /** Replies to this connection's commands waiting (they die with it). */
  private readonly replies: Uint8Array[] = [];
  /** The running interrogation's answer: its next ASDU, read ahead so it is done once its last ACT_TERM is out. */
  private interrogation: { rest: Iterator<Uint8Array>; next: Uint8Array } | undefined;
  private received = 0;
  private firstReceivedAt = 0;
  private lastRx: number;
  private testSentAt: number | undefined;
  private stopPending = false;
  /** The connection's write queue is full: no I frame is built until it drains (hold). */
  private held = false;

  constructor(private readonly handlers: StationHandlers, private readonly timers: StationTimers = DEFAULT_TIMERS, now = 0) {
    this.lastRx = now;
  }

  /** ASDUs waiting for STARTDT or the k window (events and replies; a running interrogation's unbuilt rest not counted). */
  get queued(): number {
    return this.events.length + this.replies.length;
  }

  /** The k window is full: nothing more leaves until the master acknowledges. */
  get windowFull(): boolean {
    return this.unacked.length >= this.timers.k;
  }

  /**
   * The events this connection has not delivered: sent but unacknowledged, then queued. The outstation hands them
   * to the next connection, so a drop loses none (an unacknowledged event may arrive twice: at least once).
   * Replies are this connection's answers: they are never handed to another master.
   */
  remaining(): Uint8Array[] {
    return [...this.unacked.filter((u) => u.event).map((u) => u.asdu), ...this.events];
  }

  /** Gives up the undelivered events (remaining()) when the connection stops data transfer; replies are discarded. */
  drain(): Uint8Array[] {
    const out = this.remaining();
    this.unacked.length = 0;
    this.events.length = 0;
    this.replies.length = 0;
    this.interrogation = undefined;
    return out;
  }

  /**
   * Holds I frames back while the connection cannot write (its write queue above its bound), and lets them go when
   * it can: with the k window, this keeps what a master does not read out of memory (an interrogation is built as pulled).
   */
  hold(held: boolean, now: number): StationOutput {
    this.held = held;
    return this.flush({ send: [], refusals: [] }, now);
  }

  /** Queues spontaneous events in order; they leave when started and the window allows. */
  enqueue(asdus: readonly Uint8Array[], now: number): StationOutput {
    // One by one: a spread of a long backlog (a master away for a day) would exceed V8's argument limit.
    for (const a of asdus) this.events.push(a);
    return this.flush({ send: [], refusals: [] }, now);
  }

  handle(apdu: Apdu, now: number): StationOutput {
    const out: StationOutput = { send: [], refusals: [] };
    this.lastRx = now;
    this.testSentAt = undefined; // any frame proves the link (clause 5.2: t3 restarts, a pending test is answered by traffic)
    if (apdu.format === 'U') {
      switch (apdu.fn) {
        case 'STARTDT_ACT': this.started = true; this.stopPending = false; out.send.push(encodeApdu({ format: 'U', fn: 'STARTDT_CON' })); break;
        case 'STOPDT_ACT': this.stopPending = true; break;
        case 'TESTFR_ACT': out.send.push(encodeApdu({ format: 'U', fn: 'TESTFR_CON' })); break;
        default: break; // *_CON from a master: TESTFR con already cleared the pending test above
      }
      return this.flush(out, now);
    }
    if (!this.ack(apdu.nr, out)) return { ...out, close: 'sequenceError' };
    if (apdu.format === 'S') return this.flush(out, now);
    if (!this.started) return { ...out, close: 'missingStartdt' };
    if (apdu.ns !== this.vr) return { ...out, close: 'sequenceError' };
    this.vr = seqNext(this.vr);
    if (this.received === 0) this.firstReceivedAt = now;
    this.received++;
    const r = handleAsdu(apdu.asdu, this.handlers, this.interrogation !== undefined);
    if (r.refusal) out.refusals.push(r.refusal);
    if (r.clockSync !== undefined) out.clockSync = r.clockSync;
    for (const reply of r.replies) this.replies.push(reply);
    if (r.interrogation) this.startInterrogation(r.interrogation);
    // A master that sends commands faster than it takes their answers is cut off before it fills memory.
    if (this.replies.length > MAX_QUEUED_REPLIES) return { ...out, close: 'replyQueueFull' };
    this.flush(out, now);
    if (this.received >= this.timers.w) this.sendAck(out);
    return out;
  }

  tick(now: number): StationOutput {
    const out: StationOutput = { send: [], refusals: [] };
    const oldest = this.unacked[0];
    if (oldest && now - oldest.at >= this.timers.t1Ms) return { ...out, close: 't1Expired' };
    if (this.testSentAt !== undefined && now - this.testSentAt >= this.timers.t1Ms) return { ...out, close: 't1Expired' };
    if (this.received > 0 && now - this.firstReceivedAt >= this.timers.t2Ms) this.sendAck(out);
    if (this.testSentAt === undefined && now - this.lastRx >= this.timers.t3Ms) {
      out.send.push(encodeApdu({ format: 'U', fn: 'TESTFR_ACT' }));
      this.testSentAt = now;
    }
    return this.flush(out, now);
  }

  /** Accepts N(R) when it lies between the oldest unacknowledged N(S) and V(S). */
  private ack(nr: number, out: StationOutput): boolean {
    const base = this.unacked[0]?.ns ?? this.vs;
    if (seqDistance(base, nr) > seqDistance(base, this.vs)) return false;
    // unacked holds consecutive numbers from base to V(S) - 1: everything before N(R) is acknowledged.
    while (this.unacked.length > 0 && this.unacked[0]!.ns !== nr) (out.acked ??= []).push(this.unacked.shift()!.asdu);
    return true;
  }

  private sendAck(out: StationOutput): void {
    out.send.push(encodeApdu({ format: 'S', nr: this.vr }));
    this.received = 0;
  }

  private startInterrogation(answer: Iterable<Uint8Array>): void {
    const rest = answer[Symbol.iterator]();
    const first = rest.next();
    this.interrogation = first.done ? undefined : { rest, next: first.value };
  }

  /** The next ASDU to send: a reply, else the interrogation's next, else an event. */
  private nextOut(): { asdu: Uint8Array; event: boolean } | undefined {
    const reply = this.replies.shift();
    if (reply) return { asdu: reply, event: false };
    const gi = this.interrogation;
    if (gi) {
      const after = gi.rest.next();
      const asdu = gi.next;
      if (after.done) this.interrogation = undefined; else gi.next = after.value;
      return { asdu, event: false };
    }
    const event = this.events.shift();
    return event ? { asdu: event, event: true } : undefined;
  }

  private flush(out: StationOutput, now: number): StationOutput {
    while (this.started && !this.stopPending && !this.held && !this.windowFull) {
      const next = this.nextOut();
      if (!next) break;
      out.send.push(encodeApdu({ format: 'I', ns: this.vs, nr: this.vr, asdu: next.asdu }));
      if (next.event) (out.sentEvents ??= []).push(next.asdu);
      this.received = 0; // an I frame acknowledges what we received
      this.unacked.push({ ns: this.vs, at: now, ...next });
      this.vs = seqNext(this.vs);
    }
    // STOPDT con only once everything sent is acknowledged (clause 5.3); what is queued waits for the next STARTDT.
    if (this.stopPending && this.unacked.length === 0) {
      if (this.received > 0) this.sendAck(out);
      out.send.push(encodeApdu({ format: 'U', fn: 'STOPDT_CON' }));
      this.started = false;
      this.stopPending = false;
    }
    return out;
  }
}
