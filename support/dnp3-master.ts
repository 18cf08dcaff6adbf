// Spawns the yadnp3 (opendnp3) master of yadnp3_master.py and talks to it one JSON line per command.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const root = new URL('../', import.meta.url).pathname;

export interface Item { outstation: number; kind: 'binary' | 'analog'; event: boolean; gv: string; index: number; value: number | boolean; flags: number; time: number }
interface Iin { restart?: boolean; needTime?: boolean }
export interface Answer {
  cmd: string;
  items: Item[];
  /** Per outstation address: values received by kind ('binary', 'analog', 'binaryEvents', 'analogEvents'), filtered or not. */
  counts: Record<string, Record<string, number>>;
  iin: Iin;
  iins: Record<string, Iin>;
}

export interface MasterOptions {
  /** Outstation link addresses, one association each on the one TLS channel (default [10]). */
  addresses?: number[];
  /** List only measurements at these indexes (all are counted). */
  indexes?: number[];
  /** opendnp3's time synchronisation procedure (default NonLAN: DELAY_MEASURE + WRITE g50v1). */
  timeSync?: 'LAN' | 'NonLAN';
  /** The master's clock = host clock + this (default 0). */
  clockOffsetMs?: number;
}

export function pythonWithYadnp3(): string {
  return execFileSync('bash', [join(root, 'test/interop/dnp3/setup-yadnp3.sh')], { encoding: 'utf8' }).trim().split('\n').pop()!;
}

export class Yadnp3Master {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: AsyncIterator<string>;

  constructor(port: number, certs: { ca: string; cert: string; key: string }, opts: MasterOptions = {}) {
    const extra = [(opts.addresses ?? [10]).join(','), ...(opts.indexes ? [opts.indexes.join(',')] : [])];
    const env = { ...process.env, YADNP3_TIME_SYNC: opts.timeSync ?? 'NonLAN', YADNP3_CLOCK_OFFSET_MS: String(opts.clockOffsetMs ?? 0) };
    this.child = spawn(pythonWithYadnp3(), [join(root, 'test/interop/dnp3/yadnp3_master.py'), String(port), certs.ca, certs.cert, certs.key, ...extra], { env });
    this.child.stderr.on('data', (c: Buffer) => process.stderr.write(c));
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }

  /** The answer to the start-up sequence (first line). */
  async startup(): Promise<Answer> {
    const r = await this.lines.next();
    if (r.done) throw new Error('master exited');
    return JSON.parse(r.value) as Answer;
  }

  /** READ class 1/2/3/0 or 1/2/3 of one association (`address`) or of each in turn. */
  async command(cmd: 'integrity' | 'events', address?: number): Promise<Answer> {
    this.child.stdin.write(`${cmd}${address === undefined ? '' : ` ${address}`}\n`);
    return this.startup();
  }

  /** READ one group/variation: all objects (qualifier 06), or the index range start..stop (00/01). */
  async read(group: number, variation: number, range?: [number, number]): Promise<Answer> {
    this.child.stdin.write(range ? `range ${group} ${variation} ${range[0]} ${range[1]}\n` : `read ${group} ${variation}\n`);
    return this.startup();
  }

  async stop(): Promise<void> {
    this.child.stdin.write('quit\n');
    await new Promise((r) => { this.child.on('exit', r); setTimeout(r, 3000); });
    this.child.kill();
  }
}

/** The last measurement of `kind` at `index` (from outstation `address`, default any). */
export const find = (a: Answer, kind: string, index: number, event: boolean, address?: number): Item | undefined =>
  a.items.filter((i) => i.kind === kind && i.index === index && i.event === event && (address === undefined || i.outstation === address)).pop();

/**
 * Event polls until `done` holds for every item received so far: a stored change reaches the outstation through
 * the feed within about a second on a quiet machine and later under load, so a test waits for the outcome.
 */
export async function eventsUntil(master: Yadnp3Master, done: (received: Answer) => boolean, timeoutMs = 60_000): Promise<Answer> {
  const received: Answer = { cmd: 'events', items: [], counts: {}, iin: {}, iins: {} };
  const end = Date.now() + timeoutMs;
  for (;;) {
    const a = await master.command('events');
    received.items.push(...a.items);
    received.iin = a.iin;
    received.iins = a.iins;
    if (done(received)) return received;
    if (Date.now() > end) throw new Error(`events: not there within ${timeoutMs} ms; last items ${JSON.stringify(received.items.slice(-5))}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
