// A transport whose producer fails its first sends: the broker outage of the publish-before-ack tests.
import type { OutMessage, Transport } from '../../stages/runtime/transport/transport.js';

export interface FlakyTransport extends Transport {
  /** send() calls so far, failed ones included. */
  readonly calls: number;
  /** Batches passed to send(), in call order. */
  readonly batches: OutMessage[][];
}

/** The same transport, except that its producer rejects the first `failFirst` sends (Infinity: all). */
export function flakyTransport(inner: Transport, failFirst: number): FlakyTransport {
  const real = inner.producer();
  const batches: OutMessage[][] = [];
  let calls = 0;
  const producer = {
    async send(messages: OutMessage[]) {
      calls++;
      batches.push(messages);
      if (calls <= failFirst) throw new Error(`broker unavailable (test failure ${calls} of ${failFirst})`);
      await real.send(messages);
    },
  };
  return {
    ...inner,
    producer: () => producer,
    get calls() { return calls; },
    batches,
  };
}
