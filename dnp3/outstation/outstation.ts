// The outstation's application layer: requests in, response fragments out. It owns the database, the event
// buffer and the solicited/unsolicited state, but no socket and no clock: every entry point takes `now`, and
// the session calls `tick(now)` for timeouts and unsolicited responses.
import type { Temporal } from 'temporal-polyfill';
import { FunctionCode, Iin, nextSeq, parseRequest, wantsConfirm } from '../app/header.js';
import type { BroadcastKind } from '../link/secondary.js';
import { objectSpec } from '../objects/table.js';
import { Database } from './database.js';
import type { EventOrigin, PointType, PointConfig } from './database.js';
import { EventBuffer } from './event-buffer.js';
import type { BufferedEvent } from './event-buffer.js';
import type { DiscardReason } from '../diagnostics/reasons.js';
import { handleRead } from './read.js';
import { buildFragment, iterateFragments, packRuns } from './response.js';
import type { Run } from './response.js';
import { handleControl, handleWrite, parseHeadersOrIin, unsolicitedClasses } from './commands.js';
import type { PointValue } from '../objects/codec.js';
import { UnsolicitedState, type PendingFragment } from './unsolicited.js';

export interface OutstationConfig {
  maxTxFragment: number;
  /** Unsolicited responses allowed (docs/decisions.md: on by default per integration). */
  unsolicited: boolean;
  confirmTimeoutMs: number;
  unsolConfirmTimeoutMs: number;
  /** Retries of one unsolicited fragment before giving up on it (events stay buffered). */
  unsolMaxRetries: number;
  eventCapacityPerClass: number;
}

export const DEFAULT_OUTSTATION_CONFIG: OutstationConfig = {
  maxTxFragment: 2048,
  unsolicited: true,
  confirmTimeoutMs: 5000,
  unsolConfirmTimeoutMs: 5000,
  unsolMaxRetries: Number.POSITIVE_INFINITY,
  eventCapacityPerClass: 1000,
};

/** The configuration every bank of an integration runs with: the defaults and the integration's unsolicited setting. */
export function outstationConfigFor(integration: { unsolicited: boolean }): OutstationConfig {
  return { ...DEFAULT_OUTSTATION_CONFIG, unsolicited: integration.unsolicited };
}

/**
 * Told when events caused by a stored check-in (EventDraft.origin) leave in a fragment and when the master
 * confirms that fragment: the one place the latency metrics and the test-fault timeline hook into DNP3.
 */
export interface EventObserver {
  sent(events: readonly BufferedEvent[], nowMs: number, unsolicited: boolean): void;
  confirmed(events: readonly BufferedEvent[], nowMs: number, unsolicited: boolean): void;
}

/** A solicited response waiting for CONFIRM; `next` encodes the following fragment on demand. */
interface SolicitedWait { current: PendingFragment; next: () => PendingFragment | undefined; deadline: number }

const ms = (now: Temporal.Instant): number => now.epochMilliseconds;

export class Outstation {
  readonly config: OutstationConfig;
  readonly db = new Database();
  readonly events: EventBuffer;
  private restart = true;
  private needTime = true;
  private broadcastSeen = false;
  /** Outstation clock = host clock + offset, set by the master's time write. */
  private clockOffsetMs = 0;
  private recordedAtMs: number | undefined;
  private sol: SolicitedWait | undefined;
  private readonly unsol: UnsolicitedState;
  private lastRequest: Uint8Array | undefined;
  private lastResponse: Uint8Array | undefined;
  /** Discards since the stack last took them (takeDiscards): the stack reports them per connection. */
  private discards: DiscardReason[] = [];
  /** Events that carry an origin; none: no lookups on send and confirm. */
  private originEvents = 0;
  observer: EventObserver | undefined;

  constructor(config: Partial<OutstationConfig> = {}) {
    this.config = { ...DEFAULT_OUTSTATION_CONFIG, ...config };
    this.events = new EventBuffer(this.config.eventCapacityPerClass);
    this.unsol = new UnsolicitedState({ confirmTimeoutMs: this.config.unsolConfirmTimeoutMs, maxRetries: this.config.unsolMaxRetries });
  }

  /** Sets the number of points of a type (e.g. from the point map). */
  definePoints(type: PointType, count: number, config: PointConfig): void {
    this.db.resize(type, count, config);
  }

  /** Stores a value and buffers the event it causes, if any; `origin`: the stored check-in that caused it. */
  update(type: PointType, index: number, value: PointValue, origin?: EventOrigin): boolean {
    const event = this.db.update(type, index, value, origin);
    if (event) {
      this.events.push(event);
      if (event.origin) this.originEvents++;
    }
    return event !== undefined;
  }

  /** What was discarded or refused since the last call (dnp3/diagnostics/reasons.ts). */
  takeDiscards(): DiscardReason[] {
    if (this.discards.length === 0) return [];
    const out = this.discards;
    this.discards = [];
    return out;
  }

  private notice(kind: 'sent' | 'confirmed', eventIds: readonly number[], nowMs: number, unsolicited: boolean): void {
    if (!this.observer || this.originEvents === 0 || eventIds.length === 0) return;
    const events = this.events.byIds(eventIds).filter((e) => e.origin);
    if (events.length === 0) return;
    if (kind === 'confirmed') this.originEvents = Math.max(0, this.originEvents - events.length);
    this.observer[kind](events, nowMs, unsolicited);
  }

  clockMs(now: Temporal.Instant): number {
    return ms(now) + this.clockOffsetMs;
  }

  /** IIN of the next response (request-specific bits are OR-ed in by the caller). */
  iin(): number {
    let iin = 0;
    if (this.restart) iin |= Iin.DEVICE_RESTART;
    if (this.needTime) iin |= Iin.NEED_TIME;
    if (this.broadcastSeen) iin |= Iin.BROADCAST;
    const classes = this.events.pendingClasses();
    if (classes.has(1)) iin |= Iin.CLASS_1_EVENTS;
    if (classes.has(2)) iin |= Iin.CLASS_2_EVENTS;
    if (classes.has(3)) iin |= Iin.CLASS_3_EVENTS;
    if (this.events.overflow) iin |= Iin.EVENT_BUFFER_OVERFLOW;
    return iin;
  }

  /** Handles one reassembled request fragment; returns the fragments to send now (0 or 1). */
  handle(fragment: Uint8Array, now: Temporal.Instant, broadcast?: BroadcastKind): Uint8Array[] {
    let req;
    try {
      req = parseRequest(fragment);
    } catch {
      this.discards.push('tooShort');
      return []; // fewer than two octets: nothing to answer
    }
    const { control, func } = req;
    if (func === FunctionCode.CONFIRM) {
      if (control.uns) { this.onUnsolicitedConfirm(control.seq, now); return []; }
      return this.onSolicitedConfirm(control.seq, now);
    }
    // Requests are single-fragment and never ask for confirmation (opendnp3 ignores anything else).
    if (!control.fir || !control.fin) { this.discards.push('requestNotSingleFragment'); return []; }
    if (control.con) { this.discards.push('requestWithCon'); return []; }
    if (control.uns) { this.discards.push('requestWithUns'); return []; }
    if (broadcast) {
      // Executed but never answered; the next response carries IIN1.0.
      this.execute(req.func, req.body, control.seq, now);
      this.cancelSolicited();
      this.broadcastSeen = true;
      return [];
    }
    // A repeated non-READ request (same SEQ, same octets) is answered again without executing it twice.
    if (func !== FunctionCode.READ && this.lastRequest && this.lastResponse && equal(this.lastRequest, fragment)) return [this.lastResponse];
    this.cancelSolicited();
    const responses = this.execute(func, req.body, control.seq, now);
    this.lastRequest = fragment.slice();
    this.lastResponse = responses[0];
    return responses;
  }

  private execute(func: number, body: Uint8Array, seq: number, now: Temporal.Instant): Uint8Array[] {
    switch (func) {
      case FunctionCode.READ: {
        const parsed = parseHeadersOrIin(body, false);
        if ('iin' in parsed) return this.respond(seq, [], parsed.iin, now);
        const r = handleRead({ db: this.db, events: this.events, clockMs: this.clockMs(now) }, parsed.headers);
        if (r.refused) this.discards.push(r.refused);
        return this.respond(seq, [...r.eventRuns, ...r.staticRuns], r.iin, now);
      }
      case FunctionCode.WRITE: {
        const parsed = parseHeadersOrIin(body, true);
        if ('iin' in parsed) return this.respond(seq, [], parsed.iin, now);
        const w = handleWrite(parsed.headers);
        if (w.clearRestart) this.restart = false;
        if (w.setTime) {
          if (w.setTime.atRecorded && this.recordedAtMs === undefined) w.iin |= Iin.PARAMETER_ERROR;
          else {
            const reference = w.setTime.atRecorded ? this.recordedAtMs! : ms(now);
            this.clockOffsetMs = w.setTime.ms - reference;
            this.needTime = false;
            this.recordedAtMs = undefined;
          }
        }
        return this.respond(seq, [], w.iin, now);
      }
      case FunctionCode.SELECT:
      case FunctionCode.OPERATE:
      case FunctionCode.DIRECT_OPERATE: {
        const c = handleControl(body);
        return this.respond(seq, c.echo.length ? [{ kind: 'raw', bytes: c.echo }] : [], c.iin, now);
      }
      case FunctionCode.DIRECT_OPERATE_NR:
        return [];
      case FunctionCode.ENABLE_UNSOLICITED:
      case FunctionCode.DISABLE_UNSOLICITED: {
        if (!this.config.unsolicited) { this.discards.push('unsolicitedOff'); return this.respond(seq, [], Iin.NO_FUNC_CODE_SUPPORT, now); }
        const parsed = parseHeadersOrIin(body, false);
        if ('iin' in parsed) return this.respond(seq, [], parsed.iin, now);
        const u = unsolicitedClasses(parsed.headers);
        this.unsol.setClasses(u.mask, func === FunctionCode.ENABLE_UNSOLICITED);
        return this.respond(seq, [], u.iin, now);
      }
      case FunctionCode.DELAY_MEASURE: {
        if (body.length > 0) return this.respond(seq, [], Iin.PARAMETER_ERROR, now);
        // Requests are handled synchronously on arrival, so the processing delay reported is 0 ms.
        return this.respond(seq, [{ kind: 'count', spec: objectSpec(52, 2)!, values: [{ flags: 0, value: 0, time: 0 }] }], 0, now);
      }
      case FunctionCode.RECORD_CURRENT_TIME:
        if (body.length > 0) return this.respond(seq, [], Iin.PARAMETER_ERROR, now);
        this.recordedAtMs = ms(now);
        return this.respond(seq, [], 0, now);
      default:
        this.discards.push('functionNotSupported');
        return this.respond(seq, [], Iin.NO_FUNC_CODE_SUPPORT, now);
    }
  }

  /** Packs runs into fragments; sends the first, produces each next one when the previous is confirmed. */
  private respond(seq: number, runs: Run[], requestIin: number, now: Temporal.Instant): Uint8Array[] {
    const fragments = iterateFragments(runs, this.config.maxTxFragment);
    const iin = this.iin() | requestIin;
    if (this.broadcastSeen) this.broadcastSeen = false;
    let i = 0;
    let ahead = fragments.next();
    const next = (): PendingFragment | undefined => {
      if (ahead.done) return undefined;
      const p = ahead.value;
      ahead = fragments.next();
      const fin = ahead.done === true;
      const s = nextSeq(seq, i);
      const con = !fin || p.eventIds.length > 0;
      const bytes = buildFragment({ fir: i === 0, fin, con, uns: false, seq: s }, FunctionCode.RESPONSE, iin, p.body);
      i++;
      return { bytes, seq: s, eventIds: p.eventIds };
    };
    const first = next()!;
    if (wantsConfirm(first.bytes)) this.sol = { current: first, next, deadline: ms(now) + this.config.confirmTimeoutMs };
    this.notice('sent', first.eventIds, ms(now), false);
    return [first.bytes];
  }

  private cancelSolicited(): void {
    if (!this.sol) return;
    this.sol = undefined;
    this.events.unselect('sol');
  }

  /** Returns the next fragment of a multi-fragment response, if any. */
  private onSolicitedConfirm(seq: number, now: Temporal.Instant): Uint8Array[] {
    const sol = this.sol;
    if (!sol || sol.current.seq !== seq) { this.discards.push('unexpectedConfirm'); return []; }
    this.notice('confirmed', sol.current.eventIds, ms(now), false);
    this.events.remove(sol.current.eventIds);
    this.lastRequest = undefined; // a CONFIRM ends duplicate detection (opendnp3)
    const next = sol.next();
    if (!next) { this.sol = undefined; return []; }
    sol.current = next;
    this.notice('sent', next.eventIds, ms(now), false);
    // A last fragment without events needs no confirm.
    if (!wantsConfirm(next.bytes)) this.sol = undefined;
    else sol.deadline = ms(now) + this.config.confirmTimeoutMs;
    return [next.bytes];
  }

  private onUnsolicitedConfirm(seq: number, now: Temporal.Instant): void {
    const confirmed = this.unsol.confirm(seq);
    if (!confirmed) { this.discards.push('unexpectedConfirm'); return; }
    this.notice('confirmed', confirmed.eventIds, ms(now), true);
    this.events.remove(confirmed.eventIds);
  }

  /**
   * A new connection: transactions of the old one are abandoned (their events return to the buffer), the
   * database, event buffer and indications persist, so events raised while disconnected are not lost.
   */
  resetConnection(): void {
    this.cancelSolicited();
    if (this.unsol.abandon()) this.events.unselect('unsol');
    this.lastRequest = undefined;
    this.lastResponse = undefined;
  }

  /** Timeouts, retries and new unsolicited responses. Call periodically and after updates. */
  tick(now: Temporal.Instant): Uint8Array[] {
    const t = ms(now);
    if (this.sol && t >= this.sol.deadline) {
      if (this.sol.current.eventIds.length > 0) this.discards.push('solicitedConfirmTimeout');
      this.cancelSolicited();
    }
    if (!this.config.unsolicited) return [];
    const timer = this.unsol.timer(t);
    if (timer.kind === 'waiting') return [];
    if (timer.kind !== 'idle') this.discards.push('unsolicitedConfirmTimeout');
    if (timer.kind === 'gaveUp') { this.events.unselect('unsol'); return []; }
    if (timer.kind === 'retry') return [timer.bytes];
    if (this.sol) return []; // one transaction at a time: unsolicited waits for the solicited confirm
    if (this.unsol.needsNullResponse()) return [this.sendUnsolicited([], [], true, t)];
    const classes = this.unsol.enabledClasses();
    if (classes.size === 0) return [];
    const pending = this.events.pendingClasses();
    if (![...classes].some((c) => pending.has(c))) return [];
    const selected = this.events.select({ classes }, 'unsol');
    const runs = handleEventsAsRuns(selected);
    const packed = packRuns(runs, this.config.maxTxFragment);
    const first = packed[0]!;
    // Only one fragment per unsolicited response: events that did not fit go back to the buffer.
    this.events.unselect('unsol', new Set(selected.map((e) => e.id).filter((id) => !first.eventIds.includes(id))));
    const bytes = this.sendUnsolicited(first.body, first.eventIds, false, t);
    this.notice('sent', first.eventIds, t, true);
    return [bytes];
  }

  private sendUnsolicited(body: number[], eventIds: number[], isNull: boolean, t: number): Uint8Array {
    // Always one fragment (FIR, FIN), always confirmed (CON), in the unsolicited series (UNS).
    const build = (seq: number) => buildFragment({ fir: true, fin: true, con: true, uns: true, seq }, FunctionCode.UNSOLICITED_RESPONSE, this.iin(), body);
    return this.unsol.send(build, eventIds, isNull, t);
  }

  /** Earliest time `tick` has work, for the session's timer (undefined: only on new data). */
  nextDeadline(): number | undefined {
    const d = [this.sol?.deadline, this.unsol.deadline()].filter((x): x is number => x !== undefined);
    return d.length ? Math.min(...d) : undefined;
  }
}

function handleEventsAsRuns(selected: ReturnType<EventBuffer['select']>): Run[] {
  const runs: Run[] = [];
  for (const e of selected) {
    const sp = e.type === 'binary' ? objectSpec(2, 2)! : objectSpec(32, 7)!;
    const last = runs[runs.length - 1];
    const entry = { index: e.index, value: e.value, eventId: e.id };
    if (last && last.kind === 'indexed' && last.spec === sp) last.entries.push(entry);
    else runs.push({ kind: 'indexed', spec: sp, entries: [entry] });
  }
  return runs;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
