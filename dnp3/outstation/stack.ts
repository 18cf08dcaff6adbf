// Link + transport + outstation in one pure object: wire octets in, wire frames out. The session feeds it
// from a socket; conformance tests feed it hex. Nothing here touches a socket or a clock.
// MultiDropStack puts several of them (an organisation's banks, at consecutive link addresses) behind one
// link parser: every frame goes to every bank's link layer, which keeps what is addressed to it.
import type { Temporal } from 'temporal-polyfill';
import { LinkParser } from '../link/parser.js';
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
}

export class OutstationStack {
  readonly parser = new LinkParser();
  readonly link: LinkSecondary;
  readonly transport: TransportReceiver;
  readonly outstation: Outstation;
  private txSeq = 0;

  constructor(config: StackConfig, outstation?: Outstation) {
    this.link = new LinkSecondary(config.link);
    this.transport = new TransportReceiver(config.maxRxFragment ?? 2048);
    this.outstation = outstation ?? new Outstation(config.outstation);
  }

  /** Octets from the master; returns the frames to write back, in order. */
  receive(bytes: Uint8Array, now: Temporal.Instant): Uint8Array[] {
    return this.parser.push(bytes).flatMap((frame) => this.receiveFrame(frame, now));
  }

  /** One parsed link frame (from a parser shared with other outstations on the connection). */
  receiveFrame(frame: LinkFrame, now: Temporal.Instant): Uint8Array[] {
    const out: Uint8Array[] = [];
    const r = this.link.handle(frame);
    if (r.reply) out.push(encodeFrame(r.reply));
    if (!r.payload) return out;
    const t = this.transport.push(r.payload, r.broadcast !== undefined);
    if (!t.fragment) return out;
    for (const fragment of this.outstation.handle(t.fragment, now, r.broadcast)) out.push(...this.frames(fragment));
    return out;
  }

  /** Timeouts and unsolicited responses, as frames. */
  tick(now: Temporal.Instant): Uint8Array[] {
    return this.outstation.tick(now).flatMap((f) => this.frames(f));
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

  /** Octets from the master; every frame goes to every bank, replies in order. */
  receive(bytes: Uint8Array, now: Temporal.Instant): Uint8Array[] {
    this.sync();
    const out: Uint8Array[] = [];
    for (const frame of this.parser.push(bytes)) for (const stack of this.stacks) out.push(...stack.receiveFrame(frame, now));
    return out;
  }

  tick(now: Temporal.Instant): Uint8Array[] {
    this.sync();
    return this.stacks.flatMap((s) => s.tick(now));
  }

  private sync(): void {
    const banks = this.banks();
    for (let b = this.stacks.length; b < banks.length; b++) {
      // 0xFFF0..0xFFFF are broadcast and reserved addresses: a bank there could never be addressed alone.
      if (this.config.link.address + b > MAX_LINK_ADDRESS) break;
      const outstation = banks[b]!;
      outstation.resetConnection();
      this.stacks.push(new OutstationStack({ ...this.config, link: { ...this.config.link, address: this.config.link.address + b } }, outstation));
    }
  }
}
