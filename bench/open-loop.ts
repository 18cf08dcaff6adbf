// An open-loop HTTP load generator: request i is due at start + i / rate, whatever happened to the ones
// before it, and its latency counts from that due time (so a stalled server is charged for the requests
// that queued behind the stall: no coordinated omission).
//
// Why not autocannon -R: autocannon limits each connection to rate/connections requests per second and
// sends that quota as fast as it can at the start of every second (httpClient.js reqsMadeThisSecond), so
// "200 req/s over 20 connections" is a burst of 200 concurrent-ish requests once a second, and its
// coordinated-omission correction uses an expected interval of ceil(1 / rate) = 1 ms. That measures a
// burst, not a rate. The vegeta and wrk2 binaries (constant-rate generators) are not on this machine's
// registries.
//
//   node --import tsx bench/open-loop.ts <url> --rate 200 --seconds 20 --connections 20 [--header k=v ...]
//
// Prints one JSON line: { requests, non2xx, errors, p50, p90, p99, max, achievedRate } (latencies in ms).
// Run it as its own process so its CPU is not the measured server's.
import http from 'node:http';
import { parseArgs } from 'node:util';
import { percentile } from '../support/stats.js';

export interface OpenLoopResult {
  requests: number;
  non2xx: number;
  errors: number;
  /** The distinct error messages, so a failed row says why. */
  errorKinds: string[];
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Requests completed per second of the run. */
  achievedRate: number;
}

export interface OpenLoopOptions {
  url: string;
  rate: number;
  seconds: number;
  connections: number;
  headers: Record<string, string>;
}

/**
 * One GET over `agent`, answered when its last byte is read: the body is neither decoded nor decompressed, so the
 * time is the server's and the wire's. Node's fetch (undici) is not used for timing: reading a 2.5 MB map through it
 * took 46 ms where this took 8 (and a gzip answer 37 ms against 1.4, fetch inflating it), so a bench timing a large
 * answer with fetch timed its own client (docs/benchmarks.md#reads-at-scale).
 */
export function getOnce(agent: http.Agent, url: string | URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export async function openLoop(o: OpenLoopOptions): Promise<OpenLoopResult> {
  // fifo: every connection takes its turn, as 20 clients would. With Node's default lifo a few sockets
  // carry the load and the rest idle past the server's keep-alive timeout, then race its close (ECONNRESET).
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections, scheduling: 'fifo' });
  const url = new URL(o.url);
  const total = Math.round(o.rate * o.seconds);
  const intervalMs = 1000 / o.rate;
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const errorKinds = new Set<string>();
  const conditional = Object.keys(o.headers).some((h) => h.toLowerCase() === 'if-none-match');

  const send = (dueAt: number) => new Promise<void>((resolve) => {
    // From when it was due, or when it left if that was earlier (the loop sends up to 1 ms ahead): a late
    // send counts its wait (no coordinated omission), an early one does not shorten the answer.
    const from = Math.min(dueAt, performance.now());
    const req = http.request(url, { agent, headers: o.headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => {
        latencies.push(performance.now() - from);
        const status = res.statusCode ?? 0;
        // 304 is the answer a conditional request (If-None-Match) asks for.
        if ((status < 200 || status > 299) && !(status === 304 && conditional)) non2xx++;
        resolve();
      });
    });
    req.on('error', (err) => { errors++; errorKinds.add(err.message); resolve(); });
    req.end();
  });

  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const dueAt = start + i * intervalMs;
    const wait = dueAt - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(send(dueAt));
  }
  await Promise.all(inFlight);
  const elapsedS = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p: number) => (latencies.length === 0 ? 0 : percentile(latencies, p));
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    requests: latencies.length, non2xx, errors, errorKinds: [...errorKinds],
    p50: round(at(50)), p90: round(at(90)), p99: round(at(99)),
    max: round(latencies.at(-1) ?? 0), achievedRate: round(latencies.length / elapsedS),
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rate: { type: 'string', default: '200' }, seconds: { type: 'string', default: '20' },
      connections: { type: 'string', default: '20' }, header: { type: 'string', multiple: true, default: [] },
    },
  });
  if (!positionals[0]) throw new Error('usage: open-loop.ts <url> [--rate N] [--seconds N] [--connections N] [--header k=v]');
  const headers = Object.fromEntries(values.header.map((h) => [h.slice(0, h.indexOf('=')), h.slice(h.indexOf('=') + 1)]));
  const result = await openLoop({ url: positionals[0], rate: Number(values.rate), seconds: Number(values.seconds), connections: Number(values.connections), headers });
  console.log(JSON.stringify(result));
}
