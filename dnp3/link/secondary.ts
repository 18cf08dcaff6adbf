// The outstation side of the link layer. It returns what to do (reply frame, payload for transport, or the
// reason the frame was discarded) instead of doing it, so every rule is testable without a socket.
// Link state is per connection: construct one per session.
import { PrimaryFunction, SecondaryFunction } from './frame.js';
import type { LinkFrame } from './frame.js';

export const BROADCAST_NO_CONFIRM = 0xfffd;
export const BROADCAST_CONFIRM_MANDATORY = 0xfffe;
export const BROADCAST_CONFIRM_OPTIONAL = 0xffff;

export type BroadcastKind = 'noConfirm' | 'confirmMandatory' | 'confirmOptional';

export type LinkDiscard =
  | 'fromOutstation' // DIR=0: another outstation talking
  | 'wrongDestination'
  | 'wrongSource'
  | 'secondaryFrame' // replies (e.g. the master's LINK_STATUS to our keep-alive) carry nothing for us
  | 'broadcastNotUserData'
  | 'notReset' // confirmed data or test before RESET_LINK_STATES
  | 'repeatedFcb'; // a retransmission: ACKed again, data not delivered twice

export interface LinkSecondaryConfig {
  address: number;
  masterAddress: number;
  /** Accept requests from any source address (opendnp3's respondToAnyMaster). */
  anyMaster?: boolean;
}

export interface LinkResult {
  reply?: LinkFrame;
  /** Transport segment for the upper layer. */
  payload?: Uint8Array;
  broadcast?: BroadcastKind;
  discarded?: LinkDiscard;
}

export class LinkSecondary {
  private reset = false;
  private expectedFcb = true;
  readonly discards = new Map<LinkDiscard, number>();

  constructor(private readonly config: LinkSecondaryConfig) {}

  private discard(reason: LinkDiscard): LinkResult {
    this.discards.set(reason, (this.discards.get(reason) ?? 0) + 1);
    return { discarded: reason };
  }

  private replyTo(f: LinkFrame, func: number): LinkFrame {
    return { dir: false, prm: false, fcb: false, fcvDfc: false, func, dest: f.src, src: this.config.address, data: new Uint8Array(0) };
  }

  handle(f: LinkFrame): LinkResult {
    if (!f.dir) return this.discard('fromOutstation');
    const broadcast = broadcastKind(f.dest);
    if (!broadcast && f.dest !== this.config.address) return this.discard('wrongDestination');
    if (!this.config.anyMaster && f.src !== this.config.masterAddress) return this.discard('wrongSource');
    if (!f.prm) return this.discard('secondaryFrame');
    if (broadcast) {
      // Only user data may be broadcast, and a broadcast is never acknowledged.
      if (f.func === PrimaryFunction.UNCONFIRMED_USER_DATA) return { payload: f.data, broadcast };
      if (f.func === PrimaryFunction.CONFIRMED_USER_DATA && this.reset && f.fcb === this.expectedFcb) {
        this.expectedFcb = !this.expectedFcb;
        return { payload: f.data, broadcast };
      }
      return this.discard('broadcastNotUserData');
    }
    switch (f.func) {
      case PrimaryFunction.REQUEST_LINK_STATUS:
        return { reply: this.replyTo(f, SecondaryFunction.LINK_STATUS) };
      case PrimaryFunction.RESET_LINK_STATES:
        this.reset = true;
        this.expectedFcb = true;
        return { reply: this.replyTo(f, SecondaryFunction.ACK) };
      case PrimaryFunction.UNCONFIRMED_USER_DATA:
        return { payload: f.data };
      case PrimaryFunction.TEST_LINK_STATES:
      case PrimaryFunction.CONFIRMED_USER_DATA: {
        if (!this.reset) return this.discard('notReset');
        const ack = this.replyTo(f, SecondaryFunction.ACK);
        if (f.fcb !== this.expectedFcb) return { ...this.discard('repeatedFcb'), reply: ack };
        this.expectedFcb = !this.expectedFcb;
        return f.func === PrimaryFunction.CONFIRMED_USER_DATA ? { reply: ack, payload: f.data } : { reply: ack };
      }
      default:
        return { reply: this.replyTo(f, SecondaryFunction.NOT_SUPPORTED) };
    }
  }

  /** The frame carrying one transport segment from this outstation. */
  userData(segment: Uint8Array, dest = this.config.masterAddress): LinkFrame {
    return { dir: false, prm: true, fcb: false, fcvDfc: false, func: PrimaryFunction.UNCONFIRMED_USER_DATA, dest, src: this.config.address, data: segment };
  }
}

export function broadcastKind(dest: number): BroadcastKind | undefined {
  if (dest === BROADCAST_NO_CONFIRM) return 'noConfirm';
  if (dest === BROADCAST_CONFIRM_MANDATORY) return 'confirmMandatory';
  if (dest === BROADCAST_CONFIRM_OPTIONAL) return 'confirmOptional';
  return undefined;
}
