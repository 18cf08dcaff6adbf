// The console of test/run.ts when two lanes run at once (docs/decisions.md#ci-time-two-lanes): each suite (or
// check) writes into a block of its own, and a block reaches the console whole, never interleaved with another.
// One block at a time streams live (the first to open while none does); the others are kept until it closes,
// then the finished ones are printed in the order they finished and the oldest one still running goes live.

export interface Block {
  write(text: string): void;
  close(): void;
}

export function outputBlocks(out: (text: string) => void = (text) => { process.stdout.write(text); }): { open(): Block } {
  interface State { kept: string[]; closed: boolean }
  let live: State | null = null;
  const waiting: State[] = []; // opened while another was live, in the order they opened
  const finished: State[] = []; // closed while another was live, in the order they closed

  const handOver = () => {
    live = null;
    for (const s of finished.splice(0)) out(s.kept.join(''));
    const next = waiting.shift();
    if (next) {
      live = next;
      out(next.kept.join(''));
      next.kept = [];
    }
  };

  return {
    open(): Block {
      const state: State = { kept: [], closed: false };
      if (live === null) live = state;
      else waiting.push(state);
      return {
        write(text: string) {
          if (state.closed) return;
          if (live === state) out(text);
          else state.kept.push(text);
        },
        close() {
          if (state.closed) return;
          state.closed = true;
          if (live === state) { handOver(); return; }
          waiting.splice(waiting.indexOf(state), 1);
          finished.push(state);
        },
      };
    },
  };
}
