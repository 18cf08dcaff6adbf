// Per-test clean-up for the bridge suites. uvu swallows an error thrown by an after.each hook and then
// reports the file as passed with fewer tests, so a failing clean-up (e.g. DeleteQueue while the server
// restarts) is printed here instead of thrown, and every step still runs.
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';
import type { Transport } from '../../stages/runtime/transport/transport.js';
import type { Source } from '../../stages/bridge/index.js';

export type CleanupStep = () => Promise<unknown>;

export interface CleanupList {
  add(step: CleanupStep): void;
  run(): Promise<void>;
  /** An in-process transport, closed at clean-up. */
  transport(): Transport;
  /** Starts a source and makes sure it is stopped even when the test fails, so the process can exit. */
  start(source: Source): Promise<Source>;
}

export function cleanupList(): CleanupList {
  const steps: CleanupStep[] = [];
  const add = (step: CleanupStep) => { steps.push(step); };
  return {
    add,
    transport() {
      const t = memoryTransport({ codec: localAvroCodec(), partitions: 4, retryDelayMs: 10 });
      add(() => t.close());
      return t;
    },
    async start(source) {
      add(() => source.stop());
      await source.start();
      return source;
    },
    async run() {
      for (const step of steps.splice(0).reverse()) {
        try {
          await step();
        } catch (err) {
          console.error(`clean-up step failed: ${(err as Error).message}`);
        }
      }
    },
  };
}
