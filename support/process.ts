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

/** A free TCP port on loopback (the OS picks it; the tiny race with another taker is acceptable in tests). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
