// Transport function: one header octet (FIN 0x80, FIR 0x40, SEQ 0..63) before each link frame's payload.
// Reassembly as IEEE 1815 describes the transport function: FIR starts over, a gap in SEQ abandons the partial fragment, a fragment
// larger than the receive limit is dropped whole (memory stays bounded by maxFragmentSize).

export const FIN = 0x80;
export const FIR = 0x40;
export const MAX_SEGMENT_PAYLOAD = 249;
export const DEFAULT_MAX_FRAGMENT = 2048;

export type TransportDiscard = 'empty' | 'noFir' | 'badSequence' | 'tooLarge' | 'broadcastNotSingle';

export interface TransportResult {
  fragment?: Uint8Array;
  discarded?: TransportDiscard;
}

export class TransportReceiver {
  private parts: Uint8Array[] = [];
  private size = 0;
  private active = false;
  private lastSeq = 0;
  readonly discards = new Map<TransportDiscard, number>();

  constructor(private readonly maxFragmentSize = DEFAULT_MAX_FRAGMENT) {}

  private discard(reason: TransportDiscard, abandon: boolean): TransportResult {
    this.discards.set(reason, (this.discards.get(reason) ?? 0) + 1);
    if (abandon) this.clear();
    return { discarded: reason };
  }

  private clear(): void {
    this.parts = [];
    this.size = 0;
    this.active = false;
  }

  push(segment: Uint8Array, broadcast = false): TransportResult {
    if (segment.length === 0) return this.discard('empty', false);
    const header = segment[0]!;
    const fir = (header & FIR) !== 0;
    const fin = (header & FIN) !== 0;
    const seq = header & 0x3f;
    if (broadcast && !(fir && fin)) return this.discard('broadcastNotSingle', false);
    if (fir) {
      this.clear();
      this.active = true;
    } else if (!this.active) {
      return this.discard('noFir', false);
    } else if (seq !== ((this.lastSeq + 1) & 0x3f)) {
      return this.discard('badSequence', true);
    }
    this.lastSeq = seq;
    const body = segment.subarray(1);
    if (this.size + body.length > this.maxFragmentSize) return this.discard('tooLarge', true);
    this.parts.push(body.slice());
    this.size += body.length;
    if (!fin) return {};
    const out = new Uint8Array(this.size);
    let o = 0;
    for (const p of this.parts) { out.set(p, o); o += p.length; }
    this.clear();
    return { fragment: out };
  }
}

/** Splits a fragment into segments with consecutive sequence numbers starting at `seq`. */
export function segmentFragment(fragment: Uint8Array, seq: number): { segments: Uint8Array[]; nextSeq: number } {
  const segments: Uint8Array[] = [];
  let s = seq & 0x3f;
  const total = Math.max(1, Math.ceil(fragment.length / MAX_SEGMENT_PAYLOAD));
  for (let i = 0; i < total; i++) {
    const body = fragment.subarray(i * MAX_SEGMENT_PAYLOAD, (i + 1) * MAX_SEGMENT_PAYLOAD);
    const seg = new Uint8Array(body.length + 1);
    seg[0] = (i === 0 ? FIR : 0) | (i === total - 1 ? FIN : 0) | s;
    seg.set(body, 1);
    segments.push(seg);
    s = (s + 1) & 0x3f;
  }
  return { segments, nextSeq: s };
}
