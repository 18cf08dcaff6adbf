// One owner for the placeholders (config/secret-placeholders.ts): every example value the README, docs/, ops/
// and the example env files give a secret setting is one the start-up rule refuses, so an operator who copies an
// example and forgets to change it is stopped (docs/decisions.md#secrets-left-at-their-example). A new example
// value written into the docs must be a placeholder of that list, or this test fails.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isPlaceholder, SECRET_SETTINGS, secretPart, type SecretSetting } from '../../config/secret-placeholders.js';

const root = new URL('../..', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(root, path)).isDirectory() ? files(path) : [path];
  });
}

const documents = ['README.md', ...files('docs'), ...files('ops')].filter((f) => /\.(md|env|json|ya?ml|conf|service)$/.test(f));

/** Every `NAME=value` (env files, shell lines) and every secret URL with a password the documents give. */
function examples(): { file: string; name: SecretSetting; value: string }[] {
  const found: { file: string; name: SecretSetting; value: string }[] = [];
  const names = Object.keys(SECRET_SETTINGS) as SecretSetting[];
  for (const file of documents) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const name of names) {
      for (const m of text.matchAll(new RegExp(`\\b${name}=([^\\s\`'"|]+)`, 'g'))) found.push({ file, name, value: m[1]! });
    }
    // An SMTP or PostgreSQL URL with a password anywhere in prose or a table (the README's smtp://user:password@...).
    for (const m of text.matchAll(/\b(smtps?|postgres(?:ql)?):\/\/[^\s:/@`]+:[^\s@`]+@[^\s`|)]+/g)) {
      found.push({ file, name: m[1]!.startsWith('smtp') ? 'ALARM_SMTP_URL' : 'DATABASE_URL', value: m[0] });
    }
  }
  return found;
}

test('the scan finds the example values it should (the test can fail)', () => {
  const seen = examples().map((e) => `${e.file} ${e.name}`);
  for (const want of ['docs/examples/deploy/secrets.env JWT_SECRET', 'docs/examples/deploy/secrets.env DATABASE_URL', 'docs/examples/deploy/alarms.env ALARM_SMS_TOKEN', 'docs/examples/deploy/alarms.env ALARM_SMTP_URL', 'README.md ALARM_SMTP_URL']) {
    assert.ok(seen.includes(want), `${want} in ${seen.join(', ')}`);
  }
});

test('every example value a document gives a secret setting is refused at start', () => {
  const accepted = examples().filter(({ name, value }) => {
    const secret = secretPart(name, value);
    return secret !== null && !secret.startsWith('$') && !isPlaceholder(secret);
  });
  assert.equal(accepted.map((e) => `${relative(root, join(root, e.file))}: ${e.name}=${e.value}`), [], 'add the placeholder to SECRET_PLACEHOLDERS (config/secret-placeholders.ts) or write CHANGE-ME');
});

test.run();
