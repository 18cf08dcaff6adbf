// The c104 controlling station (test/interop/iec104/c104_master.py, c104 from PyPI over lib60870-C, GPL: run as a
// test peer only) as a child process: one JSON line per point, ASDU and command it sees.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = new URL('../../../', import.meta.url).pathname;
let python: string | undefined;
/** The venv's python with c104 installed (setup-c104.sh, idempotent). */
export const c104Python = (): string => (python ??= execFileSync('bash', [join(root, 'test/interop/iec104/setup-c104.sh')], { encoding: 'utf8' }).trim().split('\n').pop()!);

export interface Line { ev: string; ca?: number; ioa?: number; type?: string; cot?: string; value?: number | null; quality?: string[]; recordedAt?: number | null; ok?: boolean; negative?: boolean; state?: string }

export class C104Master {
  readonly lines: Line[] = [];
  private readonly child: ChildProcessWithoutNullStreams;
  private waiters: (() => void)[] = [];
  /** `cas`: the common addresses to add as stations, comma separated. */
  /** `standby`: connects without STARTDT (send `start` to take over). */
  constructor(port: number, who: { ca: string; cert: string; key: string }, connectS = 30, cas = '1', standby = false) {
    this.child = spawn(c104Python(), [join(root, 'test/interop/iec104/c104_master.py'), String(port), who.ca, who.cert, who.key, cas, String(connectS), ...(standby ? ['standby'] : [])]);
    this.child.stderr.resume(); // lib60870's TLS debug output
    this.child.stdin.on('error', () => {}); // a killed master's stdin is gone
    createInterface({ input: this.child.stdout }).on('line', (l) => {
      if (process.env.IEC104_TRACE) console.error(l);
      if (!l.startsWith('{')) return;
      this.lines.push(JSON.parse(l) as Line);
      for (const w of this.waiters.splice(0)) w();
    });
  }
  /** Waits (generously: the machine is shared) until `pred` holds for the lines so far. */
  async until(pred: (lines: Line[]) => boolean, what: string, ms = 60_000): Promise<void> {
    const end = Date.now() + ms;
    while (!pred(this.lines)) {
      if (Date.now() > end) throw new Error(`c104: no ${what} in ${JSON.stringify(this.lines.slice(-5))}`);
      await new Promise<void>((r) => { this.waiters.push(r); setTimeout(r, 500); });
    }
  }
  send(cmd: string): void { this.child.stdin.write(`${cmd}\n`); }
  /**
   * Quits (killed after 2 s) and resolves once the process is gone: until then it is still connected and may
   * receive and acknowledge events, which a test expecting them at the next master would miss.
   */
  stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.stdin.end('quit\n');
    setTimeout(() => this.child.kill(), 2000).unref();
    return exited;
  }
  /** Kills the process: its TCP connection drops without STOPDT (a failed front-end). */
  kill(): void { this.child.kill('SIGKILL'); }
  /** The spontaneous points seen so far. */
  spontaneous(): Line[] { return this.lines.filter((x) => x.ev === 'point' && x.cot === 'SPONTANEOUS'); }
}
