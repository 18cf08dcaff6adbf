// Pure rules of hostile-caller logins (docs/decisions.md#hostile-callers): the address key, X-Forwarded-For
// read from the right, the hash gate's bound, and a failed attempt taken back when the password was right.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoginLimiter } from '../../api/auth/rate-limit.js';
import { addressKey } from '../../domain/ip-address.js';
import { forwardedFor } from '../../api/client-address.js';
import { loadSettings } from '../../config/settings.js';
import { HashGate, HashGateBusy } from '../../api/auth/hash-gate.js';

test('addressKey: IPv4 as is, IPv6 by its /64 in every spelling, IPv4-mapped IPv6 as IPv4', () => {
  assert.is(addressKey('203.0.113.9'), '203.0.113.9');
  assert.is(addressKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
  assert.is(addressKey('2001:0db8:0001:0002:ffff:eeee:dddd:cccc'), '2001:db8:1:2::/64');
  assert.is(addressKey('2001:DB8:1:2:0:0:0:99'), '2001:db8:1:2::/64');
  assert.is.not(addressKey('2001:db8:1:3::1'), addressKey('2001:db8:1:2::1'));
  assert.is(addressKey('::ffff:203.0.113.9'), '203.0.113.9');
  assert.is(addressKey('::ffff:cb00:7109'), '203.0.113.9');
  assert.is(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.is(addressKey('unknown'), 'unknown');
});

test('the limit holds across addresses of one /64', () => {
  const l = new LoginLimiter({ perEmail: { max: 100, windowMs: 60_000 }, perAddress: { max: 3, windowMs: 60_000 } });
  for (let i = 0; i < 3; i++) l.failed(`u${i}@x.example`, `2001:db8:5:6::${i + 1}`, 0);
  assert.ok(l.retryAfterS('new@x.example', '2001:db8:5:6:abcd::77', 1) > 0);
  assert.is(l.retryAfterS('new@x.example', '2001:db8:5:7::1', 1), 0, 'the next /64 is another subscriber');
});

test('succeeded takes back the attempt counted before the check', () => {
  const l = new LoginLimiter({ perEmail: { max: 1, windowMs: 60_000 }, perAddress: { max: 10, windowMs: 60_000 } });
  l.failed('a@x.example', '192.0.2.1', 5);
  assert.ok(l.retryAfterS('a@x.example', '192.0.2.1', 6) > 0);
  l.succeeded('a@x.example', '192.0.2.1', 5);
  assert.is(l.retryAfterS('a@x.example', '192.0.2.1', 6), 0);
});

test('X-Forwarded-For is read from the right: the entry the trusted proxy appended', () => {
  assert.is(forwardedFor('198.51.100.7', 1), '198.51.100.7');
  assert.is(forwardedFor('1.2.3.4, 5.6.7.8, 198.51.100.7', 1), '198.51.100.7', 'left entries are the client\'s own writing');
  assert.is(forwardedFor('1.2.3.4, 198.51.100.7, 10.0.0.2', 2), '198.51.100.7');
  assert.is(forwardedFor('10.0.0.2', 2), null, 'fewer entries than proxies: the socket peer');
  assert.is(forwardedFor('1.2.3.4, not-an-ip', 1), null);
  assert.is(forwardedFor(undefined, 1), null);
  assert.is(forwardedFor('2001:db8::1', 1), '2001:db8::1');
  assert.is(loadSettings({}).trustProxy, 0);
  assert.is(loadSettings({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.throws(() => loadSettings({ TRUST_PROXY: 'yes' }), /TRUST_PROXY: "yes" is not a number of proxies/);
});

test('hash gate: at most `concurrent` run, `waiting` wait, the rest are refused at once', async () => {
  const gate = new HashGate({ concurrent: 2, waiting: 3, maxWaitMs: 60_000 });
  let running = 0, peak = 0;
  const releases: (() => void)[] = [];
  const work = () => new Promise<void>((resolve) => { running++; peak = Math.max(peak, running); releases.push(() => { running--; resolve(); }); });
  const results = Array.from({ length: 10 }, () => gate.run(work).then(() => 'ran', (e: unknown) => (e instanceof HashGateBusy ? 'busy' : 'error')));
  const settled = await Promise.race([Promise.all(results.slice(5)), new Promise((r) => setTimeout(() => r('pending'), 1000))]);
  assert.equal(settled, ['busy', 'busy', 'busy', 'busy', 'busy'], 'beyond 2 running + 3 waiting: refused without waiting');
  while (releases.length) { releases.shift()!(); await new Promise((r) => setImmediate(r)); }
  assert.equal(await Promise.all(results.slice(0, 5)), ['ran', 'ran', 'ran', 'ran', 'ran']);
  assert.is(peak, 2);
});

test('hash gate: a waiter that gets no slot in maxWaitMs is refused with a Retry-After', async () => {
  const gate = new HashGate({ concurrent: 1, waiting: 5, maxWaitMs: 50 });
  let release!: () => void;
  const holder = gate.run(() => new Promise<void>((r) => { release = r; }));
  const err = await gate.run(async () => 'never').catch((e: unknown) => e);
  assert.instance(err, HashGateBusy);
  assert.ok((err as HashGateBusy).retryAfterS >= 1);
  release();
  await holder;
  assert.is(await gate.run(async () => 'free again'), 'free again');
});

test.run();
