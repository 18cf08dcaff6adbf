// Webhook target ranges (alarms/channels/target-guard.ts) and the SMS request template, one row per case.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addressRange, webhookUrlProblem } from '../../alarms/channels/target-guard.js';
import { DEFAULT_SMS_TEMPLATE, smsRequest } from '../../alarms/channels/sms.js';
import { verifyWebhook, webhookSignature } from '../../alarms/channels/webhook.js';

test('address ranges', () => {
  for (const [a, r] of [['127.0.0.1', 'loopback'], ['10.0.0.1', 'private'], ['172.16.5.4', 'private'], ['172.32.0.1', 'public'], ['192.168.0.1', 'private'], ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link-local'], ['8.8.8.8', 'public'], ['0.0.0.0', 'unspecified'], ['::1', 'loopback'], ['fe80::1', 'link-local'], ['fd00::1', 'private'],
    ['::ffff:10.0.0.1', 'private'], ['::ffff:7f00:1', 'loopback'], ['2001:db8::1', 'public'], ['224.0.0.1', 'private'],
    // NAT64 and site-local count as private at least; IPv6 carrying an IPv4 address is classed by it.
    ['64:ff9b::8.8.8.8', 'private'], ['64:ff9b::a00:1', 'private'], ['64:ff9b::127.0.0.1', 'loopback'], ['64:ff9b:1::808:808', 'private'],
    ['fec0::1', 'private'], ['FEC0:0:0:1::5', 'private'], ['feff::1', 'private'], ['::127.0.0.1', 'loopback'], ['2002:c0a8:101::1', 'private'],
    ['2002:808:808::1', 'public'], ['0:0:0:0:0:0:0:1', 'loopback'], ['[::1]', 'loopback'], ['ff02::1', 'private'], ['fe80::1%eth0', 'link-local']] as const) {
    assert.is(addressRange(a), r, a);
  }
});

test('webhook URLs when saved', () => {
  assert.is(webhookUrlProblem('https://hooks.example/x', []), null);
  assert.ok(webhookUrlProblem('http://127.0.0.1/x', []));
  assert.is(webhookUrlProblem('http://127.0.0.1/x', ['loopback']), null);
  assert.ok(webhookUrlProblem('http://10.0.0.1/x', ['loopback']));
  assert.ok(webhookUrlProblem('ftp://hooks.example/x', []));
  assert.ok(webhookUrlProblem('not a url', []));
});

test('SMS: the default form post, a token header only with a token', () => {
  const r = smsRequest(DEFAULT_SMS_TEMPLATE, { to: '+1555', from: 'fl', text: 'a&b', token: 't' });
  assert.is(r.body, 'to=%2B1555&from=fl&text=a%26b');
  assert.is(r.headers.authorization, 'Bearer t');
  assert.is(smsRequest(DEFAULT_SMS_TEMPLATE, { to: '1', from: 'f', text: 'x', token: null }).headers.authorization, undefined);
  const json = smsRequest({ contentType: 'application/json', headers: { 'X-Key': '{{token}}' }, fields: { number: '{{to}}', message: '{{text}}' } }, { to: '1', from: 'f', text: 'hi', token: 'k' });
  assert.equal(JSON.parse(json.body), { number: '1', message: 'hi' });
  assert.is(json.headers['x-key'], 'k');
});

test('webhook signature over timestamp and body; stale or altered is refused', () => {
  const now = 1_800_000_000_000;
  const ts = String(now / 1000);
  const body = '{"a":1}';
  const headers = { 'x-faultline-timestamp': ts, 'x-faultline-signature': webhookSignature('s3cret-s3cret-s3cret', ts, body) };
  assert.ok(verifyWebhook('s3cret-s3cret-s3cret', headers, body, now));
  assert.not.ok(verifyWebhook('s3cret-s3cret-s3cret', headers, '{"a":2}', now));
  assert.not.ok(verifyWebhook('s3cret-s3cret-s3cret', headers, body, now + 600_000), 'replayed ten minutes later');
});

test.run();
