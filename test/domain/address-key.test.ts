// What a per-address limit counts as one address (domain/ip-address.ts addressKey): the SCADA listener's
// handshake caps (integrations/master-listener.ts) and the login limit (api/auth/rate-limit.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addressKey } from '../../domain/ip-address.js';

test('IPv4, and IPv4 mapped into IPv6 in either spelling, count by the IPv4 address', () => {
  assert.is(addressKey('192.0.2.7'), '192.0.2.7');
  assert.is(addressKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.is(addressKey('::FFFF:c000:0207'), '192.0.2.7');
  assert.is(addressKey('0:0:0:0:0:ffff:192.0.2.7'), '192.0.2.7');
  assert.is.not(addressKey('192.0.2.7'), addressKey('192.0.2.8'));
});

test('NAT64 (64:ff9b::/96) counts by the IPv4 host it carries, not as one /64 for every IPv4 host behind the translator', () => {
  assert.is(addressKey('64:ff9b::192.0.2.33'), '192.0.2.33');
  assert.is(addressKey('64:ff9b::c000:221'), '192.0.2.33');
  assert.is(addressKey('0064:FF9B:0000:0000:0000:0000:C000:0221'), '192.0.2.33');
  assert.is(addressKey('64:ff9b::c000:221'), addressKey('::ffff:192.0.2.33'), 'one host however it reaches us');
  assert.is.not(addressKey('64:ff9b::192.0.2.33'), addressKey('64:ff9b::192.0.2.34'));
  // Outside the /96 it is an ordinary IPv6 address (64:ff9b:1::/48 is the local-use prefix, not embedded here).
  assert.is(addressKey('64:ff9b:1::c000:221'), '64:ff9b:1:0::/64');
});

test('IPv6 counts by /64, however it is written', () => {
  assert.is(addressKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
  assert.is(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  assert.is(addressKey('2001:0db8:0001:0002:0:0:0:9'), '2001:db8:1:2::/64');
  assert.is(addressKey('2001:DB8:1:2::9'), '2001:db8:1:2::/64');
  assert.is(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.is(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.is(addressKey('::1'), '0:0:0:0::/64');
  assert.is.not(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:3::1'));
});

test('no address (a socket already gone) is one bucket, not an exception; anything else as given', () => {
  assert.is(addressKey(undefined), '?');
  assert.is(addressKey('unknown'), 'unknown');
});

test.run();
