// freePort (support/process.ts) hands a child process a port no outgoing connection can take before the child
// listens: one below the kernel's ephemeral range. A port the OS picked with listen(0) came from that range, and a
// CI run lost the production-shape suite to EADDRINUSE when a client connection took it first.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FREE_PORTS, freePort } from '../../support/process.js';
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

/** The first ports of this process's own lane (test/run.ts gives each lane a range): no other suite runs in it now. */
const laneFrom = Number(/^(\d+)-/.exec(process.env.FREE_PORTS ?? '')?.[1] ?? FREE_PORTS.from);

/** `script` run with freePort imported, under FREE_PORTS=`range`. */
const run = (range: string, script: string) => spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e',
  `const { freePort } = await import('./support/process.ts'); ${script}`], { encoding: 'utf8', env: { ...process.env, FREE_PORTS: range } });

test('FREE_PORTS keeps it inside a lane of its own, and a range outside its own is refused', () => {
  const range = `${laneFrom}-${laneFrom + 100}`;
  const lane = run(range, 'const p = []; for (let i = 0; i < 50; i++) p.push(await freePort()); console.log(JSON.stringify(p));');
  assert.is(lane.status, 0, lane.stderr);
  const ports = JSON.parse(lane.stdout) as number[];
  assert.ok(ports.every((p) => p >= laneFrom && p < laneFrom + 100), lane.stdout);
  const outside = run('40000-41000', 'await freePort();');
  assert.is.not(outside.status, 0);
  assert.match(outside.stderr, 'FREE_PORTS=40000-41000');
});

test('in a range with one port left free, it finds that port', () => {
  // 299 of 300 ports held by listeners: random tries missed the one left two times in three.
  const [from, until] = [laneFrom + 200, laneFrom + 500];
  const script = `const { createServer } = await import('node:net');
    const held = [];
    for (let port = ${from}; port < ${until - 1}; port++) {
      const s = createServer();
      const ok = await new Promise((resolve) => { s.once('error', () => resolve(false)); s.listen(port, '127.0.0.1', () => resolve(true)); });
      if (ok) held.push(s);
    }
    console.log(JSON.stringify(await freePort()));
    for (const s of held) s.close();`;
  const picked = run(`${from}-${until}`, script);
  assert.is(picked.status, 0, picked.stderr);
  assert.is(JSON.parse(picked.stdout), until - 1);
});

test.run();
