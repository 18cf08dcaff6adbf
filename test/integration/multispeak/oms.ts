// The customer's OMS for the delivery suites: test/multispeak/py/oms_server.py on a loopback port, which
// parses every request with zeep against the reference OA_Server WSDL (test/multispeak/wsdl/, the official
// document's facts) and validates it with lxml.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../../support/process.js';
import { waitFor } from '../../../support/wait-for.js';
import { PY_DIR, PY_ENV, python, WSDL_DIR } from '../../multispeak/python.js';

export interface Received {
  version: string;
  operation: string;
  soapAction: string;
  expectedSoapAction: string;
  header: Record<string, string>;
  body: Record<string, unknown>;
  schemaErrors: string[];
}

export interface Oms {
  url: string;
  mode(mode: 'ok' | '500' | 'timeout' | 'reset'): Promise<void>;
  received(): Promise<Received[]>;
  /** The MessageID of every request the OMS saw, answered or not. */
  attempts(): Promise<(string | null)[]>;
  stop(): Promise<void>;
}

export async function startOms({ tls }: { tls?: { cert: string; key: string } } = {}): Promise<Oms> {
  const port = await freePort();
  const args = [join(PY_DIR, 'oms_server.py'), String(port), WSDL_DIR, ...(tls ? [tls.cert, tls.key] : [])];
  const child: ChildProcess = spawn(python, args, { cwd: PY_DIR, env: PY_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  await waitFor(`the OMS on ${port} (${out})`, () => out.includes('listening') || child.exitCode !== null, { timeoutMs: 60_000 });
  if (child.exitCode !== null) throw new Error(`OMS exited: ${out}`);
  const control = `http://127.0.0.1:${port}`;
  // The control calls go over plain HTTP only when the OMS is plain; with TLS they are not needed.
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/oms`,
    async mode(mode) { await fetch(`${control}/control`, { method: 'POST', body: mode }); },
    async received() { return (await (await fetch(`${control}/received`)).json()) as Received[]; },
    async attempts() { return (await (await fetch(`${control}/attempts`)).json()) as (string | null)[]; },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
