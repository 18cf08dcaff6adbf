// How the start-up list names where a listener listens (cli/listening.ts): the bound address, and in words
// whether the network reaches it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { whereListening } from '../../cli/listening.js';
import { loadSettings } from '../../config/settings.js';

test('loopback says so, and how to open it', () => {
  assert.is(whereListening('127.0.0.1', 8080), '127.0.0.1:8080, loopback only (HOST=0.0.0.0 opens it to the network)');
  assert.is(whereListening('::1', 20000), '[::1]:20000, loopback only (HOST=0.0.0.0 opens it to the network)');
});

test('every interface is named as such, never "localhost"', () => {
  assert.is(whereListening('0.0.0.0', 8080), '0.0.0.0:8080, every network interface');
  assert.is(whereListening('::', 8080), '[::]:8080, every network interface');
  assert.is(whereListening('192.0.2.10', 8080), '192.0.2.10:8080');
});

test('HOST defaults: loopback on the embedded default, every interface with DATABASE_URL, HOST wins', () => {
  assert.is(loadSettings({}).httpHost, '127.0.0.1');
  assert.is(loadSettings({ DATABASE_URL: 'postgres://db/faultline' }).httpHost, '0.0.0.0');
  assert.is(loadSettings({ HOST: '0.0.0.0' }).httpHost, '0.0.0.0');
  assert.is(loadSettings({ HOST: '10.1.2.3', DATABASE_URL: 'postgres://db/faultline' }).httpHost, '10.1.2.3');
});

test.run();
