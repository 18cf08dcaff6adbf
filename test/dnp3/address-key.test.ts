// What the DNP3 listener's per-address handshake cap counts as one address (dnp3/server.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addressKey } from '../../dnp3/server.js';

test('IPv4, and IPv4 mapped into IPv6, count by address', () => {
  assert.is(addressKey('192.0.2.7'), '192.0.2.7');
  assert.is(addressKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.is.not(addressKey('192.0.2.7'), addressKey('192.0.2.8'));
});

test('IPv6 counts by /64, however it is written', () => {
  assert.is(addressKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
  assert.is(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  assert.is(addressKey('2001:0db8:0001:0002:0:0:0:9'), '2001:db8:1:2::/64');
  assert.is(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.is(addressKey('::1'), '0:0:0:0::/64');
  assert.is.not(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:3::1'));
});

test('no address (a socket already gone) is one bucket, not an exception', () => {
  assert.is(addressKey(undefined), '?');
});

test.run();
