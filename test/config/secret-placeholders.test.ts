// Secrets left at the documentation's example are refused (config/secret-placeholders.ts,
// docs/decisions.md#secrets-left-at-their-example): the rule, the sentence (the variable named, never its value),
// and loadSettings applying it; the start-up warning while the embedded default's generated secrets face a network.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import type { SECRET_SETTINGS } from '../../config/secret-placeholders.js';
import { isPlaceholder, placeholderProblem } from '../../config/secret-placeholders.js';
import { loadSettings } from '../../config/settings.js';
import { generatedSecretsWarning } from '../../cli/generated-secrets.js';

const EXAMPLE_JWT = 'CHANGE-ME-at-least-32-bytes-of-random-text'; // docs/examples/deploy/secrets.env

test('equal to a placeholder, or containing a long one, in any case: refused; a random secret is not', () => {
  for (const s of [EXAMPLE_JWT, 'CHANGE-ME', 'change-me', 'whsec-change-me-0123456789', 'my-own-at-least-32-bytes-of-random-text!', 'password', 'PASS', 'xx-Password-2026-xxxxxxxxxxxxxxxxxxxxx']) {
    assert.ok(isPlaceholder(s), s);
  }
  for (const s of [randomBytes(48).toString('base64'), 'sms-Token-5678', 'compass-bearing', 'smtp-Pass-1234']) assert.not.ok(isPlaceholder(s), s);
});

test('every secret setting: the variable is named, its value is not', () => {
  const examples: Record<keyof typeof SECRET_SETTINGS, string> = {
    JWT_SECRET: EXAMPLE_JWT,
    FAULTLINE_SECRET_KEYS: 'k1:CHANGE-ME',
    ALARM_SMS_TOKEN: 'CHANGE-ME',
    ALARM_SMTP_URL: 'smtp://alarms:CHANGE-ME@smtp.example.internal:587',
    DATABASE_URL: 'postgres://faultline:CHANGE-ME@postgres.example.internal:5432/faultline?sslmode=verify-full',
  };
  for (const [name, value] of Object.entries(examples)) {
    const sentence = placeholderProblem({ [name]: value });
    assert.ok(sentence?.startsWith(name), `${name}: ${sentence}`);
    assert.not.ok(sentence!.includes(value) || sentence!.includes('CHANGE-ME'), `${name}'s value in: ${sentence}`);
    assert.throws(() => loadSettings({ [name]: value }), (e: Error) => e.message === sentence);
  }
});

test('only the secret part of a URL counts: a placeholder user, host or database name is no secret', () => {
  assert.ok(placeholderProblem({ ALARM_SMTP_URL: 'smtp://user:password@host:587' }), 'the README\'s example');
  assert.ok(placeholderProblem({ ALARM_SMTP_URL: 'smtp://user:pass@host:587' }));
  assert.is(placeholderProblem({ DATABASE_URL: 'postgres://password:s3cr3t-Xq9@change-me.internal/faultline' }), null);
  assert.is(placeholderProblem({ DATABASE_URL: 'postgres://faultline@db/faultline' }), null, 'no password at all: a matter for the server');
  const own = { JWT_SECRET: randomBytes(48).toString('base64'), ALARM_SMS_TOKEN: randomBytes(16).toString('hex'), FAULTLINE_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}` };
  assert.is(placeholderProblem(own), null);
  assert.is(loadSettings(own).jwtSecret?.length, own.JWT_SECRET.length);
});

const view = (over: Partial<Parameters<typeof generatedSecretsWarning>[1]> = {}) => ({
  httpHost: '0.0.0.0', dataDir: '/var/lib/fl', jwtSecret: null, secretKeys: { keys: null, keyFile: null }, scadaTls: null, ...over,
});

test('start-up warning: the embedded default on a network with its generated secrets, each named with what replaces it', () => {
  const line = generatedSecretsWarning(true, view());
  assert.ok(line?.startsWith('WARNING: HOST=0.0.0.0'), line ?? 'no warning');
  for (const part of ['/var/lib/fl/jwt-secret', 'JWT_SECRET', '/var/lib/fl/secrets/keys', 'FAULTLINE_SECRET_KEYS', '/var/lib/fl/certs', 'DNP3_TLS_CA']) assert.ok(line!.includes(part), part);
  const jwtSet = generatedSecretsWarning(true, view({ jwtSecret: new Uint8Array(32), httpHost: '10.1.2.3' }))!;
  assert.ok(jwtSet.includes('HOST=10.1.2.3') && !jwtSet.includes('jwt-secret') && jwtSet.includes('secrets/keys'), jwtSet);
});

test('no warning on loopback, off the embedded default, or once every generated secret is replaced', () => {
  for (const host of ['127.0.0.1', '::1', 'localhost']) assert.is(generatedSecretsWarning(true, view({ httpHost: host })), null, host);
  assert.is(generatedSecretsWarning(false, view()), null);
  assert.is(generatedSecretsWarning(true, view({ jwtSecret: new Uint8Array(32), secretKeys: { keys: null, keyFile: '/etc/fl/keys' }, scadaTls: { key: 'k', cert: 'c', ca: 'a' } })), null);
});

test.run();
