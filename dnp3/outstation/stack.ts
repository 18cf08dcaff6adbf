// Link + transport + outstation in one pure object: wire octets in, wire frames out. The session feeds it
// from a socket; conformance tests feed it hex. Nothing here touches a socket or a clock.
import type { Temporal } from 'temporal-polyfill';
import { LinkParser } from '../link/parser.js';
import { LinkSecondary } from '../link/secondary.js';
import type { LinkSecondaryConfig } from '../link/secondary.js';
import { encodeFrame } from '../link/frame.js';
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
    const out: Uint8Array[] = [];
    for (const frame of this.parser.push(bytes)) {
      const r = this.link.handle(frame);
      if (r.reply) out.push(encodeFrame(r.reply));
      if (!r.payload) continue;
      const t = this.transport.push(r.payload, r.broadcast !== undefined);
      if (!t.fragment) continue;
      for (const fragment of this.outstation.handle(t.fragment, now, r.broadcast)) out.push(...this.frames(fragment));
    }
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
