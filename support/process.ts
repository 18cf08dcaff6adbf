// Starting `faultline` as a child process, the way an operator does, with its output kept for failures.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

const root = new URL('../', import.meta.url).pathname;

export interface FaultlineProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Where `faultline` is run from: this checkout's bin/faultline.js by default, or an installed release's.
 * `processGroup`: the process leads a process group of its own, as a command typed in a terminal does, so a test
 * can signal the whole group the way Ctrl-C does (`process.kill(-pid, 'SIGINT')`) without signalling itself.
 */
export interface FaultlineInstall { bin?: string; cwd?: string; processGroup?: boolean }

export function startFaultline(args: string[], env: Record<string, string>, { bin = 'bin/faultline.js', cwd = root, processGroup = false }: FaultlineInstall = {}): FaultlineProcess {
  const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: processGroup });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Where freePort looks: below the kernel's ephemeral range (Linux 32768-60999, /proc/sys/net/ipv4/ip_local_port_range)
 * and below the infra servers' ports (infra/endpoints.ts, 25432 and up, shifted by at most 1000). A port the OS
 * picks with listen(0) comes from the ephemeral range, where any outgoing connection (a Kafka or Postgres client)
 * may take it between the pick and the child's listen: a CI run lost production-shape to EADDRINUSE so.
 * FREE_PORTS ("from-until") narrows it: test/run.ts gives its two lanes, which run at the same time, halves of
 * their own, so a suite in one lane never picks a port a suite in the other is about to listen on.
 */
export const FREE_PORTS = { from: 10_000, until: 25_000 } as const;

function portRange(): { from: number; until: number } {
  const asked = /^(\d+)-(\d+)$/.exec(process.env.FREE_PORTS ?? '');
  if (!asked) return FREE_PORTS;
  const [from, until] = [Number(asked[1]), Number(asked[2])];
  if (from < FREE_PORTS.from || until > FREE_PORTS.until || from >= until) throw new Error(`FREE_PORTS=${process.env.FREE_PORTS}: not a range inside ${FREE_PORTS.from}-${FREE_PORTS.until}`);
  return { from, until };
}

function tryListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The ports handed out by this process. A port is free only until its child listens, and a suite often picks all
 * of its ports before any child listens: the same port twice was a second child's EADDRINUSE (production-shape
 * picks 48, a ~1 % chance per run of a clash). So a port is given once per process.
 */
const given = new Set<number>();

/**
 * A TCP port free on loopback now and not given before, for a child process to listen on: outside the range
 * outgoing connections draw from. From a random port on, every port of the range in turn, so it fails only when
 * none is free: 200 random tries missed the last free ports of a nearly full range (a CI run lost free-port's
 * own test so, 100 ports asked of 100).
 */
export async function freePort(): Promise<number> {
  const { from, until } = portRange();
  const size = until - from;
  const start = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i++) {
    const port = from + ((start + i) % size);
    if (given.has(port)) continue;
    if (await tryListen(port)) {
      given.add(port);
      return port;
    }
  }
  throw new Error(`no free port found in ${from}-${until - 1}`);
}
