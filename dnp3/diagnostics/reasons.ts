// Every reason the outstation discards a frame or a request, or refuses one, with the sentence a SCADA
// engineer at the other end reads (GET /api/dnp3/diagnostics, faultline_dnp3_discarded_total, the log line of
// the first one per connection). IEEE 1815 lets an outstation stay silent in most of these cases, and the
// master then sees only time-outs: the sentence says what the master must do instead.

import { MAX_READ_HEADERS } from '../app/object-header.js';

export interface DiscardReasonInfo {
  layer: 'link' | 'transport' | 'application';
  text: string;
}

export const DISCARD_REASONS = {
  // Link layer (dnp3/link/parser.ts, dnp3/link/secondary.ts).
  junk: { layer: 'link', text: 'octets that do not start a DNP3 frame (no 05 64): skipped; check that the master speaks DNP3 on this port' },
  badCrc: { layer: 'link', text: 'frame with a wrong CRC: dropped; check the master\'s framing (each 16-octet block carries its own CRC)' },
  badFrame: { layer: 'link', text: 'frame with an impossible length, function or FCV bit: dropped' },
  notReset: { layer: 'link', text: 'confirmed user data before a link reset: ignored, the master must send RESET_LINK_STATES (or use unconfirmed user data, as most TCP masters do)' },
  repeatedFcb: { layer: 'link', text: 'confirmed user data with the same FCB as the last frame: taken for a retransmission, acknowledged again and not executed twice; the master must toggle FCB on every new frame' },
  wrongDestination: { layer: 'link', text: 'frame for a link address no bank of this outstation has: ignored; the master\'s outstation (remote) address must be one listed in the point map' },
  wrongSource: { layer: 'link', text: 'frame from a master address other than the integration\'s: ignored; the master\'s own (local) address must be the integration\'s masterAddress' },
  fromOutstation: { layer: 'link', text: 'frame with DIR=0, as if from an outstation: ignored; a master sets DIR=1' },
  secondaryFrame: { layer: 'link', text: 'secondary (reply) frame from the master with nothing to reply to: ignored' },
  broadcastNotUserData: { layer: 'link', text: 'broadcast frame that is not user data: ignored; only user data may be broadcast' },
  // Transport function (dnp3/transport/transport.ts).
  empty: { layer: 'transport', text: 'user data without a transport header: ignored' },
  noFir: { layer: 'transport', text: 'transport segment without FIR and no fragment in progress: ignored; the first segment of a fragment sets FIR' },
  badSequence: { layer: 'transport', text: 'transport segment out of sequence: the partial fragment is abandoned' },
  tooLarge: { layer: 'transport', text: 'request fragment larger than 2048 octets: dropped whole' },
  broadcastNotSingle: { layer: 'transport', text: 'broadcast request in several segments: ignored; a broadcast must be one segment' },
  // Application layer (dnp3/outstation/outstation.ts).
  tooShort: { layer: 'application', text: 'application fragment shorter than its two-octet header: ignored' },
  requestNotSingleFragment: { layer: 'application', text: 'request without FIR and FIN both set: ignored; a request must be a single fragment' },
  requestWithCon: { layer: 'application', text: 'request asking for an application confirm (CON set): ignored; requests never set CON' },
  requestWithUns: { layer: 'application', text: 'request with the UNS bit set: ignored; only CONFIRMs of unsolicited responses set UNS' },
  unexpectedConfirm: { layer: 'application', text: 'CONFIRM that matches no response waiting for one (wrong SEQ, or the UNS bit not as in the response): ignored; the master must echo the SEQ and UNS of the response it confirms' },
  solicitedConfirmTimeout: { layer: 'application', text: 'response with events not confirmed within 5 s: its events stay buffered and are reported again; the master must CONFIRM every response that sets CON' },
  unsolicitedConfirmTimeout: { layer: 'application', text: 'unsolicited response not confirmed within 5 s: sent again; the master must CONFIRM unsolicited responses (the first one, at start-up, is a null UNSOLICITED_RESPONSE, function 130, not the answer to a READ), or the integration must have unsolicited off' },
  unsolicitedOff: { layer: 'application', text: 'ENABLE/DISABLE_UNSOLICITED while the integration has unsolicited responses off: answered IIN2.0 (not supported); turn unsolicited off in the master, or on in the integration' },
  readTooManyHeaders: { layer: 'application', text: `READ with more than ${MAX_READ_HEADERS} object headers: answered IIN2.2 (parameter error) without data; poll with fewer headers (an integrity poll needs four: class 1, 2, 3 and 0)` },
  functionNotSupported: { layer: 'application', text: 'request with a function code the outstation does not support: answered IIN2.0; the device profile lists the functions it answers' },
} as const satisfies Record<string, DiscardReasonInfo>;

export type DiscardReason = keyof typeof DISCARD_REASONS;

export const isDiscardReason = (v: string): v is DiscardReason => Object.hasOwn(DISCARD_REASONS, v);

/** Where a stack reports what it discarded (one call per frame or request). */
export type DiscardSink = (reason: DiscardReason) => void;
