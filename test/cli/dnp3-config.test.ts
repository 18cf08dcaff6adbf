// Outside the embedded default the DNP3 outstation needs mutual TLS; the start-up list says when it is off
// and why, and half a TLS configuration is refused rather than read as "off".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dnp3Unconfigured } from '../../cli/dnp3.js';

const tls = { DNP3_TLS_KEY: 'k.pem', DNP3_TLS_CERT: 'c.pem', DNP3_TLS_CA: 'ca.pem' };

test('the embedded default always serves DNP3 (development certificates)', () => {
  assert.is(dnp3Unconfigured(true, {}), null);
});

test('with a database of its own and no certificates the outstation is off, and the reason names the variables', () => {
  const off = dnp3Unconfigured(false, {});
  assert.ok(off);
  assert.match(off, /^off: DNP3_TLS_KEY, DNP3_TLS_CERT, DNP3_TLS_CA are not set/);
});

test('all three TLS files, or the development plain integration, start it', () => {
  assert.is(dnp3Unconfigured(false, tls), null);
  assert.is(dnp3Unconfigured(false, { DNP3_PLAIN_INTEGRATION: 'north-scada' }), null);
});

test('half a TLS configuration is an error naming what is missing', () => {
  assert.throws(() => dnp3Unconfigured(false, { DNP3_TLS_CERT: 'c.pem' }), /DNP3_TLS_KEY and DNP3_TLS_CA missing/);
  assert.throws(() => dnp3Unconfigured(true, { ...tls, DNP3_TLS_CA: '' }), /DNP3_TLS_CA missing/);
});

test.run();
