// freePort (support/process.ts) hands a child process a port no outgoing connection can take before the child
// listens: one below the kernel's ephemeral range. A port the OS picked with listen(0) came from that range, and a
// CI run lost the production-shape suite to EADDRINUSE when a client connection took it first.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../support/process.js';

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

test.run();
