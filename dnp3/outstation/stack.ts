// Link + transport + outstation in one pure object: wire octets in, wire frames out. The session feeds it
// from a socket; conformance tests feed it hex. Nothing here touches a socket or a clock.
// MultiDropStack puts several of them (an organisation's banks, at consecutive link addresses) behind one
// link parser: every frame goes to every bank's link layer, which keeps what is addressed to it.
import type { Temporal } from 'temporal-polyfill';
import { LinkParser } from '../link/parser.js';
import type { LinkParserStats } from '../link/parser.js';
import type { DiscardReason, DiscardSink } from '../diagnostics/reasons.js';
import { LinkSecondary } from '../link/secondary.js';
import type { LinkSecondaryConfig } from '../link/secondary.js';
import { encodeFrame } from '../link/frame.js';
import type { LinkFrame } from '../link/frame.js';
import { TransportReceiver, segmentFragment } from '../transport/transport.js';
import { Outstation } from './outstation.js';
import type { OutstationConfig } from './outstation.js';

export interface StackConfig {
  link: LinkSecondaryConfig;
  outstation?: Partial<OutstationConfig>;
  maxRxFragment?: number;
  /** Every frame or request discarded or refused, once each (dnp3/diagnostics/reasons.ts). */
  onDiscard?: DiscardSink;
}

/** What the link parser dropped during one push, as discard reasons (parser stats before and after). */
export function parserDiscards(before: LinkParserStats, after: LinkParserStats): DiscardReason[] {
  const out: DiscardReason[] = [];
  if (after.junkOctets > before.junkOctets) out.push('junk');
  for (let n = after.headerCrc + after.bodyCrc - before.headerCrc - before.bodyCrc; n > 0; n--) out.push('badCrc');
  const bad = (x: LinkParserStats) => x.badLength + x.badFunction + x.badFcv + x.unexpectedData;
  for (let n = bad(after) - bad(before); n > 0; n--) out.push('badFrame');
  return out;
}

export class OutstationStack {
  readonly parser = new LinkParser();
  readonly link: LinkSecondary;
  readonly transport: TransportReceiver;
  readonly outstation: Outstation;
  private txSeq = 0;

  constructor(private readonly config: StackConfig, outstation?: Outstation) {
    this.link = new LinkSecondary(config.link);
    this.transport = new TransportReceiver(config.maxRxFragment ?? 2048);
    this.outstation = outstation ?? new Outstation(config.outstation);
  }

  /** Octets from the master; returns the frames to write back, in order. */
  receive(bytes: Uint8Array, now: Temporal.Instant): Uint8Array[] {
    const before = { ...this.parser.stats };
    const out = this.parser.push(bytes).flatMap((frame) => this.receiveFrame(frame, now));
    for (const reason of parserDiscards(before, this.parser.stats)) this.config.onDiscard?.(reason);
    return out;
  }

  /**
   * One parsed link frame (from a parser shared with other outstations on the connection). Discards go to
   * `discards` when given (the multi-drop stack decides which count), else to the config's onDiscard.
   */
  receiveFrame(frame: LinkFrame, now: Temporal.Instant, discards?: DiscardReason[]): Uint8Array[] {
    const report = (reason: DiscardReason) => { if (discards) discards.push(reason); else this.config.onDiscard?.(reason); };
    const out: Uint8Array[] = [];
    const r = this.link.handle(frame);
    if (r.discarded) report(r.discarded);
    if (r.reply) out.push(encodeFrame(r.reply));
    if (!r.payload) return out;
    const t = this.transport.push(r.payload, r.broadcast !== undefined);
    if (t.discarded) report(t.discarded);
    if (!t.fragment) return out;
    for (const fragment of this.outstation.handle(t.fragment, now, r.broadcast)) out.push(...this.frames(fragment));
    for (const reason of this.outstation.takeDiscards()) report(reason);
    return out;
  }

  /** Timeouts and unsolicited responses, as frames. */
  tick(now: Temporal.Instant, discards?: DiscardReason[]): Uint8Array[] {
    const out = this.outstation.tick(now).flatMap((f) => this.frames(f));
    for (const reason of this.outstation.takeDiscards()) {
      if (discards) discards.push(reason);
      else this.config.onDiscard?.(reason);
    }
    return out;
  }

  private frames(fragment: Uint8Array): Uint8Array[] {
    const { segments, nextSeq } = segmentFragment(fragment, this.txSeq);
    this.txSeq = nextSeq;
    return segments.map((s) => encodeFrame(this.link.userData(s)));
  }
}

/**
 * The logical outstations of one connection: bank b answers at link address `config.link.address + b`
 * (DNP3 multi-drop). `banks()` is asked on every receive and tick, so a bank created after the master
 * connected is reachable at once; its stack (link, transport and sequence state) is created then, and its
 * outstation's connection state reset as for a new connection. Pure like OutstationStack.
 */
const MAX_LINK_ADDRESS = 0xffef;

export class MultiDropStack {
  readonly parser = new LinkParser();
  private readonly stacks: OutstationStack[] = [];

  constructor(private readonly config: StackConfig, private readonly banks: () => readonly Outstation[]) {}

  /** The per-bank stacks created so far (index = bank). */
  get bankStacks(): readonly OutstationStack[] {
    this.sync();
    return this.stacks;
  }

  /**
   * Octets from the master; every frame goes to every bank, replies in order. A discard is reported once per
   * frame, and a frame is for a wrong destination only when no bank has its address.
   */
  receive(bytes: Uint8Array, now: Temporal.Instant): Uint8Array[] {
    this.sync();
    const out: Uint8Array[] = [];
    const before = { ...this.parser.stats };
    for (const frame of this.parser.push(bytes)) {
      const reasons: DiscardReason[] = [];
      for (const stack of this.stacks) out.push(...stack.receiveFrame(frame, now, reasons));
      const elsewhere = reasons.filter((r) => r === 'wrongDestination').length;
      for (const reason of new Set(reasons)) if (reason !== 'wrongDestination' || elsewhere === this.stacks.length) this.config.onDiscard?.(reason);
    }
    for (const reason of parserDiscards(before, this.parser.stats)) this.config.onDiscard?.(reason);
    return out;
  }

  tick(now: Temporal.Instant): Uint8Array[] {
    this.sync();
    const reasons: DiscardReason[] = [];
    const out = this.stacks.flatMap((s) => s.tick(now, reasons));
    for (const reason of reasons) this.config.onDiscard?.(reason);
    return out;
  }

  private sync(): void {
    const banks = this.banks();
    for (let b = this.stacks.length; b < banks.length; b++) {
      // 0xFFF0..0xFFFF are broadcast and reserved addresses: a bank there could never be addressed alone.
      if (this.config.link.address + b > MAX_LINK_ADDRESS) break;
      const outstation = banks[b]!;
      outstation.resetConnection();
      const { onDiscard: _reportedHere, ...bankConfig } = this.config;
      this.stacks.push(new OutstationStack({ ...bankConfig, link: { ...this.config.link, address: this.config.link.address + b } }, outstation));
    }
  }
}
