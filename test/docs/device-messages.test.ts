// docs/device-messages.md against the validator every queue and spool message meets
// (domain/validate-message.ts): its example is the fixture it names and passes the validator, and every field
// the validator reads is in one of its field tables. The fields are found by handing the validator a message
// whose objects record each key it asks for, so a field added to the validator and not to the page fails here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { Temporal } from 'temporal-polyfill';
import { parseQueueMessage, validateQueueMessage } from '../../domain/validate-message.js';
import { fixtureText } from '../../support/checkins.js';

const page = readFileSync(new URL('../../docs/device-messages.md', import.meta.url), 'utf8');
const section = (heading: string) => page.split(`\n${heading}\n`)[1]!.split('\n## ')[0]!;

test('the example is test/fixtures/messages/002-permanent-fault.json and passes the validator', () => {
  const example = section('## Example');
  assert.ok(example.includes('test/fixtures/messages/002-permanent-fault.json'), 'the example names its fixture');
  const body = /```json\n([\s\S]*?)\n```/.exec(example)![1]!;
  assert.equal(JSON.parse(body), JSON.parse(fixtureText('002-permanent-fault.json')));
  const result = parseQueueMessage(body, { now: Temporal.Instant.from('2026-11-20T14:06:00Z') });
  assert.ok(result.ok, result.ok ? '' : result.reason);
});

/** Every key the validator reads, as `device_data.rssi`, found through objects that record each lookup. */
function keysTheValidatorReads(): Set<string> {
  const read = new Set<string>();
  const watched = <T extends object>(target: T, at: string): T => new Proxy(target, {
    getOwnPropertyDescriptor(t, key) { if (typeof key === 'string') read.add(at + key); return Reflect.getOwnPropertyDescriptor(t, key); },
    get(t, key, receiver) { if (typeof key === 'string' && !Array.isArray(t)) read.add(at + key); return Reflect.get(t, key, receiver) as unknown; },
  });
  const message = JSON.parse(fixtureText('002-permanent-fault.json')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  message.device_data = watched(message.device_data, 'device_data.');
  message.events = [watched(message.events[0], 'events[].')];
  message.currents = watched(message.currents, 'currents.');
  message.test_fault = watched({ id: 1, phase: 'fault' }, 'test_fault.');
  validateQueueMessage(watched(message, ''));
  return read;
}

test('every field the validator reads is in a field table of the page', () => {
  const tables: Record<string, string> = {
    '': section('### The message'), 'device_data.': section('### `device_data`'), 'events[].': section('### `events[]`'),
    'currents.': section('### `currents`'), 'test_fault.': section('### The message'),
  };
  const keys = keysTheValidatorReads();
  assert.ok(keys.has('device_data.Temperature') && keys.has('events[].PhaseCEvent') && keys.size > 45, `the fields were enumerated: ${[...keys].join(', ')}`);
  const missing = [...keys].filter((path) => {
    const [, prefix, name] = /^(.*?\.?)([^.]+)$/.exec(path)!;
    const table = tables[prefix!]!;
    // test_fault's own keys are spelled in its row, as JSON.
    return prefix === 'test_fault.' ? !table.includes(`"${name!}"`) : !table.includes(`| \`${name!}\` |`);
  });
  assert.equal(missing, []);
});

test.run();
