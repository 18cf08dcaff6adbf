// The bridge core: which messages become fi.raw.v1 records (and with which key), which become dead letters
// (with which code and reason), and that the source is acknowledged only after the one send resolved.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TOPICS } from '../../schemas/avro/topics.js';
import type { DeadLetter, RawMessage } from '../../schemas/avro/values.js';
import { createBridge, decide, DEFAULT_MAX_BODY_BYTES, type DecideOptions, type ReceivedMessage } from '../../stages/bridge/bridge.js';
import type { OutMessage } from '../../stages/runtime/transport/transport.js';
import { expectedFor, messageBody, messageFiles } from '../domain/fixtures.js';

const OPTIONS: DecideOptions = { maxBodyBytes: DEFAULT_MAX_BODY_BYTES, deadLetterBodyBytes: 64 * 1024, receivedAt: 1_790_000_000_000 };
const msg = (body: string, messageId = 'm-1'): ReceivedMessage => ({ messageId, body, source: 'sqs' });
const deviceBody = (deviceData: unknown) => JSON.stringify({ device_data: deviceData, events: [] });

test('every fixture: 001 to 012 become raw records keyed by IMEI, 013 MALFORMED, 014 INVALID', () => {
  const files = messageFiles();
  assert.is(files.length, 14, 'the fixtures (test/fixtures) hold 14 messages');
  for (const file of files) {
    const body = messageBody(file);
    const d = decide({ messageId: file, body, source: 'spool' }, OPTIONS);
    const expected = expectedFor(file);
    if (expected.rejected) assert.is(d.kind === 'dead' && d.value.code, expected.rejected, `${file}: the code expected.json names`);
    if (file.startsWith('013')) {
      assert.is(d.kind, 'dead', file);
      const v = d.value as DeadLetter;
      assert.is(v.code, 'MALFORMED', file);
      assert.match(v.reason, /not valid JSON/);
      assert.match(v.reason, /position \d+/, 'the reason carries where parsing stopped');
      assert.is(d.key, file, 'no IMEI could be read: keyed by message id');
      assert.is(v.imei, null);
      assert.is(v.body, body, 'the raw body is kept unchanged');
      assert.equal([v.stage, v.source, v.messageId, v.rejectedAt], ['bridge', 'spool', file, OPTIONS.receivedAt]);
    } else if (file.startsWith('014')) {
      assert.is(d.kind, 'dead', file);
      assert.is((d.value as DeadLetter).code, 'INVALID');
      assert.match((d.value as DeadLetter).reason, /device_data\.IMEINumber/);
      assert.is(d.key, file);
    } else {
      assert.is(d.kind, 'raw', file);
      const imei = expected.imei ?? expected.unregistered;
      assert.ok(imei, `expected.json names the IMEI of ${file}`);
      assert.is(d.key, imei, file);
      assert.equal(d.value as RawMessage, { messageId: file, source: 'spool', receivedAt: OPTIONS.receivedAt, imei, body });
    }
  }
});

const rejections: [string, string, 'MALFORMED' | 'INVALID' | 'TOO_LARGE', RegExp][] = [
  ['empty body', '', 'MALFORMED', /not valid JSON/],
  ['truncated JSON', '{"device_data": {"IMEINumber": "861000000000000"', 'MALFORMED', /not valid JSON .*position/],
  ['trailing garbage', '{"device_data": {}} x', 'MALFORMED', /position 20/],
  // Same code as domain/validate-message.ts: a root that is not an object is MALFORMED there too.
  ['array root', '[]', 'MALFORMED', /body: an array is not a JSON object/],
  ['string root', '"str"', 'MALFORMED', /body: "str" \(string\) is not a JSON object/],
  ['null root', 'null', 'MALFORMED', /body: null is not a JSON object/],
  ['number root', '42', 'MALFORMED', /body: 42 \(number\) is not a JSON object/],
  ['device_data missing', '{"events": []}', 'INVALID', /^device_data: missing is not an object$/],
  ['device_data null', '{"device_data": null}', 'INVALID', /^device_data: null is not an object/],
  ['device_data an array', '{"device_data": ["861000000000000"]}', 'INVALID', /^device_data: an array/],
  ['IMEINumber missing', deviceBody({ model: 'FCI-3000' }), 'INVALID', /^device_data\.IMEINumber: missing is not a non-empty string$/],
  ['IMEINumber a number', deviceBody({ IMEINumber: 123 }), 'INVALID', /^device_data\.IMEINumber: 123 \(number\)/],
  ['IMEINumber empty', deviceBody({ IMEINumber: '' }), 'INVALID', /^device_data\.IMEINumber: "" \(string\)/],
  ['IMEINumber null', deviceBody({ IMEINumber: null }), 'INVALID', /^device_data\.IMEINumber: null/],
  ['IMEINumber an object', deviceBody({ IMEINumber: { value: '861000000000000' } }), 'INVALID', /^device_data\.IMEINumber: an object/],
  // JSON.parse turns "__proto__" into an ordinary own key: nothing inherits from it.
  ['device_data only under __proto__', '{"__proto__": {"device_data": {"IMEINumber": "861000000000000"}}}', 'INVALID', /^device_data: missing/],
  ['IMEINumber only under __proto__', '{"device_data": {"__proto__": {"IMEINumber": "861000000000000"}}}', 'INVALID', /^device_data\.IMEINumber: missing/],
];

for (const [name, body, code, reason] of rejections) {
  test(`rejects ${name} as ${code}`, () => {
    const d = decide(msg(body, 'sqs-id-7'), OPTIONS);
    assert.is(d.kind, 'dead');
    const v = d.value as DeadLetter;
    assert.is(v.code, code);
    assert.match(v.reason, reason);
    assert.is(d.key, 'sqs-id-7');
    assert.is(v.body, body);
  });
}

test('a 5 MB body is TOO_LARGE without being parsed; the dead letter keeps a bounded prefix', () => {
  const body = `{"device_data": {"IMEINumber": "861000000000000", "pad": "${'x'.repeat(5 * 1024 * 1024)}"}}`;
  const d = decide(msg(body), OPTIONS);
  assert.is(d.kind, 'dead');
  const v = d.value as DeadLetter;
  assert.is(v.code, 'TOO_LARGE');
  assert.match(v.reason, new RegExp(`body: ${Buffer.byteLength(body)} bytes is over the ${DEFAULT_MAX_BODY_BYTES} byte limit`));
  assert.is(v.body.length, 64 * 1024);
  assert.ok(body.startsWith(v.body));
});

test('the limit counts UTF-8 bytes, not characters', () => {
  const text = '€'.repeat(400_000); // 400,000 characters, 1,200,000 bytes
  const body = deviceBody({ IMEINumber: '861000000000000', note: text });
  assert.ok(body.length < DEFAULT_MAX_BODY_BYTES);
  const d = decide(msg(body), OPTIONS);
  assert.is((d.value as DeadLetter).code, 'TOO_LARGE');
  assert.ok(Buffer.byteLength((d.value as DeadLetter).body) <= 64 * 1024);
  // A kept prefix never ends in half a character.
  assert.ok(!(d.value as DeadLetter).body.includes('\ufffd'));
});

test('a body of exactly maxBodyBytes is accepted, one byte more is not', () => {
  const base = deviceBody({ IMEINumber: '861000000000000', pad: '' });
  const body = base.replace('"pad":""', `"pad":"${'y'.repeat(200 - Buffer.byteLength(base))}"`);
  assert.is(Buffer.byteLength(body), 200);
  assert.is(decide(msg(body), { ...OPTIONS, maxBodyBytes: 200 }).kind, 'raw');
  assert.is((decide(msg(body), { ...OPTIONS, maxBodyBytes: 199 }).value as DeadLetter).code, 'TOO_LARGE');
});

test('any non-empty string IMEI keys the record; full validation is left to the enrich stage', () => {
  const d = decide(msg(deviceBody({ IMEINumber: 'not-digits' })), OPTIONS);
  assert.is(d.kind, 'raw');
  assert.is(d.key, 'not-digits');
});

// forward(): one send per batch, acknowledge only after it resolved.

function recordingProducer(fail = false) {
  const log: string[] = [];
  const sent: OutMessage[][] = [];
  return {
    log, sent,
    producer: {
      async send(messages: OutMessage[]) {
        log.push('send');
        sent.push(messages);
        await new Promise((r) => setTimeout(r, 5));
        if (fail) throw new Error('broker down');
        log.push('sent');
      },
    },
  };
}

const batch: ReceivedMessage[] = [
  msg(messageBody('001-plain-checkin.json'), 'a'),
  msg('{"truncated', 'b'),
  msg(messageBody('002-permanent-fault.json'), 'c'),
  msg('{}', 'd'),
];

test('forward publishes the whole batch with one send (raw records first), then acknowledges', async () => {
  const { log, sent, producer } = recordingProducer();
  const bridge = createBridge({ producer, now: () => 123 });
  const outcome = await bridge.forward(batch, async (o) => { log.push(`ack ${o.published}+${o.deadLettered}`); });
  assert.equal(outcome, { published: 2, deadLettered: 2 });
  assert.equal(log, ['send', 'sent', 'ack 2+2']);
  assert.is(sent.length, 1);
  const [records] = sent;
  assert.equal(records!.map((r) => [r.topic, r.key]), [
    [TOPICS.raw, '861000000000000'], [TOPICS.raw, '861000000000100'], [TOPICS.dlq, 'b'], [TOPICS.dlq, 'd'],
  ]);
  assert.ok(records!.every((r) => (r.value as { messageId: string; rejectedAt?: number; receivedAt?: number }).messageId), 'every record names its message');
  assert.is((records![0]!.value as RawMessage).receivedAt, 123);
});

test('forward does not acknowledge when the send rejects, and rejects itself', async () => {
  const { log, producer } = recordingProducer(true);
  const bridge = createBridge({ producer });
  let acknowledged = false;
  try {
    await bridge.forward(batch, async () => { acknowledged = true; });
    assert.unreachable('forward should reject');
  } catch (err) {
    assert.instance(err, Error);
    assert.is((err as Error).message, 'broker down');
  }
  assert.is(acknowledged, false);
  assert.equal(log, ['send']);
});

test('an empty batch sends nothing', async () => {
  const { sent, producer } = recordingProducer();
  const outcome = await createBridge({ producer }).forward([], async () => { throw new Error('nothing to acknowledge'); });
  assert.equal(outcome, { published: 0, deadLettered: 0 });
  assert.is(sent.length, 0);
});

test.run();
