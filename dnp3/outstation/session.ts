// The only place that owns a socket and timers. It feeds received octets to the pure stack (one link parser,
// every bank's logical outstation behind it: MultiDropStack), writes what the stack returns, ticks it for timeouts and unsolicited responses, and drops masters that stay silent or stop
// reading (a master that never reads would otherwise grow our write buffer without bound).
import type { Duplex } from 'node:stream';
import { Temporal } from 'temporal-polyfill';
import { MultiDropStack } from './stack.js';
import type { StackConfig } from './stack.js';
import type { Outstation } from './outstation.js';
import type { DiscardSink } from '../diagnostics/reasons.js';

export interface SessionOptions {
  /** Close after this long without a single octet from the master (masters keep-alive every 30-60 s). */
  idleTimeoutMs?: number;
  /** Tick period: bounds the delay from a stored change to its unsolicited response. */
  tickMs?: number;
  /** Close when this many octets are queued for a master that does not read. */
  maxQueuedOctets?: number;
  clock?: () => Temporal.Instant;
  onClose?: (reason: string) => void;
  /** Every octet received ('rx') and sent ('tx'), plaintext: for test captures (tshark) and debugging. */
  onTraffic?: (direction: 'rx' | 'tx', bytes: Uint8Array) => void;
  /** Every frame or request this connection's stack discarded or refused (dnp3/diagnostics/reasons.ts). */
  onDiscard?: DiscardSink;
}

export class OutstationSession {
  readonly stack: MultiDropStack;
  private readonly idleTimeoutMs: number;
  private readonly maxQueued: number;
  private readonly clock: () => Temporal.Instant;
  private lastRx: number;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  /**
   * `outstations`: one outstation (link address `config.link.address`), or the organisation's banks, asked
   * again on every frame and tick (bank b at `config.link.address + b`; banks added later are served too).
   */
  constructor(private readonly socket: Duplex, config: StackConfig, outstations: Outstation | (() => readonly Outstation[]), private readonly opts: SessionOptions = {}) {
    const banks = typeof outstations === 'function' ? outstations : (() => { const one = [outstations]; return () => one; })();
    this.stack = new MultiDropStack(opts.onDiscard ? { ...config, onDiscard: opts.onDiscard } : config, banks);
    this.idleTimeoutMs = opts.idleTimeoutMs ?? 120_000;
    this.maxQueued = opts.maxQueuedOctets ?? 1 << 20;
    this.clock = opts.clock ?? (() => Temporal.Now.instant());
    this.lastRx = this.clock().epochMilliseconds;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => this.close('socket error'));
    socket.on('close', () => this.close('peer closed'));
    socket.on('end', () => this.close('peer ended'));
    this.timer = setInterval(() => this.onTick(), opts.tickMs ?? 100);
    this.timer.unref();
    this.onTick();
  }

  private write(frames: Uint8Array[]): void {
    for (const f of frames) {
      this.opts.onTraffic?.('tx', f);
      this.socket.write(f);
    }
    const queued = (this.socket as Duplex & { writableLength: number }).writableLength;
    if (queued > this.maxQueued) this.close('master not reading');
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    const now = this.clock();
    this.lastRx = now.epochMilliseconds;
    const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.opts.onTraffic?.('rx', bytes);
    this.write(this.stack.receive(bytes, now));
    this.write(this.stack.tick(now));
  }

  private onTick(): void {
    if (this.closed) return;
    const now = this.clock();
    if (now.epochMilliseconds - this.lastRx > this.idleTimeoutMs) { this.close('idle timeout'); return; }
    this.write(this.stack.tick(now));
  }

  /**
   * A tick now: events the feed has just applied go out as unsolicited responses at once instead of at the next
   * tick (docs/decisions.md#workers-wake-on-notify). The stack decides whether anything is due, as on any tick.
   */
  poke(): void {
    this.onTick();
  }

  close(reason = 'closed'): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.socket.destroy();
    this.opts.onClose?.(reason);
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
