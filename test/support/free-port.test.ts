// freePort (support/process.ts) hands a child process a port no outgoing connection can take before the child
// listens: one below the kernel's ephemeral range. A port the OS picked with listen(0) came from that range, and a
// CI run lost the production-shape suite to EADDRINUSE when a client connection took it first.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../support/process.js';
import { spawnSync } from 'node:child_process';

const ephemeralFrom = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

test('every port it gives is below the ephemeral range and free to listen on', async () => {
  for (let i = 0; i < 50; i++) {
    const port = await freePort();
    assert.ok(port < ephemeralFrom, `port ${port} is in the ephemeral range (from ${ephemeralFrom})`);
    const server = createServer();
    await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', resolve); });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('it never gives the same port twice in one process (a suite picks all its ports before any child listens)', async () => {
  const ports = new Set<number>();
  for (let i = 0; i < 1000; i++) ports.add(await freePort());
  assert.is(ports.size, 1000);
});

test('FREE_PORTS keeps it inside a lane of its own, and a range outside its own is refused', () => {
  const pick = (range: string) => spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e',
    "const { freePort } = await import('./support/process.ts'); const p = []; for (let i = 0; i < 100; i++) p.push(await freePort()); console.log(JSON.stringify(p));"],
  { encoding: 'utf8', env: { ...process.env, FREE_PORTS: range } });
  const lane = pick('17500-17600');
  assert.is(lane.status, 0, lane.stderr);
  const ports = JSON.parse(lane.stdout) as number[];
  assert.ok(ports.every((p) => p >= 17500 && p < 17600), lane.stdout);
  const outside = pick('40000-41000');
  assert.is.not(outside.status, 0);
  assert.match(outside.stderr, 'FREE_PORTS=40000-41000');
});

test.run();
