// Outside the embedded default the DNP3 outstation needs mutual TLS; the start-up list says when it is off
// and why, and half a TLS configuration is refused (when the settings are read) rather than read as "off".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dnp3Unconfigured } from '../../cli/dnp3.js';
import { loadSettings } from '../../config/settings.js';

const tls = { DNP3_TLS_KEY: 'k.pem', DNP3_TLS_CERT: 'c.pem', DNP3_TLS_CA: 'ca.pem' };
const dnp3 = (env: Record<string, string>) => loadSettings(env);

test('the embedded default always serves DNP3 (development certificates)', () => {
  assert.is(dnp3Unconfigured(true, dnp3({})), null);
});

test('with a database of its own and no certificates the outstation is off, and the reason names the variables', () => {
  const off = dnp3Unconfigured(false, dnp3({}));
  assert.ok(off);
  assert.match(off, /^off: DNP3_TLS_KEY, DNP3_TLS_CERT, DNP3_TLS_CA are not set/);
});

test('all three TLS files, or the development plain integration, start it', () => {
  assert.is(dnp3Unconfigured(false, dnp3(tls)), null);
  assert.equal(dnp3(tls).scadaTls, { key: 'k.pem', cert: 'c.pem', ca: 'ca.pem' }, 'one setting for both SCADA listeners');
  assert.is(dnp3Unconfigured(false, dnp3({ DNP3_PLAIN_INTEGRATION: 'north-scada' })), null);
});

test('half a TLS configuration is an error naming what is missing', () => {
  assert.throws(() => dnp3({ DNP3_TLS_CERT: 'c.pem' }), /DNP3_TLS_KEY and DNP3_TLS_CA missing/);
  assert.throws(() => dnp3({ ...tls, DNP3_TLS_CA: '' }), /DNP3_TLS_CA missing/);
});

test('DNP3_PORT: 20000 unset, a port when set, refused otherwise', () => {
  assert.is(dnp3({}).dnp3.port, 20000);
  assert.is(dnp3({ DNP3_PORT: '20001' }).dnp3.port, 20001);
  assert.throws(() => dnp3({ DNP3_PORT: 'twenty' }), /DNP3_PORT: "twenty" is not a port/);
});

test.run();
